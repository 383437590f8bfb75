/** One Bash call through a real server's HTTP API: it ran (with its output), or it asked (and was denied). */
import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { CallRecord, PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import type { PermissionMode } from '../../src/contracts/ports.js'
import type { BashCommandOutput } from '../../src/tools/bash/bash-output.js'
import { textOf } from './model-text.js'

export type BashOutcome =
  { readonly kind: 'ran'; readonly output: string; readonly exitCode: number | null; readonly ruleId?: string | undefined } | { readonly kind: 'asked'; readonly reason: string }

export type JsonFetch = <T>(method: string, route: string, body?: unknown) => Promise<{ status: number; body: T }>

let sessions = 0

/** Opens a session on `workspace` in `mode`; returns its id. */
export async function openSession(json: JsonFetch, workspace: string, mode: PermissionMode): Promise<string> {
  const id = `bash-calls-${process.pid}-${++sessions}`
  const reply = await json('POST', '/sessions', { id, workspace, permissionMode: mode })
  expect(reply.status).toBe(201)
  return id
}

/** Runs `input` as one Bash call; a call that asks is denied, so that it ends. */
export async function bashCall(json: JsonFetch, sessionId: string, input: Record<string, unknown>): Promise<BashOutcome> {
  const accepted = await json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: 'c1', name: 'Bash', input }] })
  expect(accepted.status).toBe(202)
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const pending = await json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}&status=pending`)
    const request = pending.body.requests[0]
    if (request !== undefined) {
      await json('POST', `/permissions/${request.id}`, { decision: 'deny' })
      await json('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
      return { kind: 'asked', reason: request.reason }
    }
    const schedule = await json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}`)
    const call = schedule.body.calls[0]
    if (schedule.body.status === 'completed' && call?.result !== undefined) {
      const output = call.result.output as BashCommandOutput | undefined
      if (output === undefined) throw new Error(`the call ended without output: ${JSON.stringify(call.result)}`)
      return { kind: 'ran', output: commandOutputText(call), exitCode: output.exitCode }
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('the Bash call neither ran nor asked')
}

/** A finished command's kept output text from its record, put back together as the CallResult schema describes. */
export function commandOutputText(call: CallRecord): string {
  const text = (call.result?.output as BashCommandOutput | undefined)?.output ?? ''
  return call.result?.outputAfterModelContent === true ? textOf(call.modelContent) + text : text
}

/** What one Bash call that needs no approval gave: its status, exit code, output text and whether it ran confined. */
export interface BashRun {
  readonly status: string
  readonly exitCode: number | null
  readonly output: string
  readonly confined: boolean | undefined
}

/** Runs `command` as one Bash call of `sessionId` (created when new) and waits for its end. */
export async function runBashCall(json: JsonFetch, sessionId: string, command: string): Promise<BashRun> {
  const accepted = await json<ScheduleAcceptedReply>('POST', '/schedules', {
    sessionId,
    createSession: {},
    calls: [{ id: `c${randomBytes(4).toString('hex')}`, name: 'Bash', input: { command } }],
  })
  expect(accepted.status).toBe(202)
  const schedule = await json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=20`)
  const call = schedule.body.calls[0]
  const output = call?.result?.output as BashCommandOutput | undefined
  const text = call === undefined ? '' : output === undefined ? textOf(call.modelContent ?? '') : commandOutputText(call)
  return { status: call?.status ?? 'missing', exitCode: output?.exitCode ?? null, output: text, confined: output?.confined }
}

/** A command no parser can read: the shell gets it from a decoded string at run time, so only the sandbox stands in its way. */
export function hiddenFromParser(command: string): string {
  return `echo ${Buffer.from(command).toString('base64')} | base64 -d | bash`
}
