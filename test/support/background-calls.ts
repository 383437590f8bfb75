/** Background commands on a child-process server (crash-child.ts), started and read through its HTTP API. */
import { existsSync, readFileSync } from 'node:fs'
import { expect } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import type { CrashChild } from './crash-child.js'
import { textOf } from './model-text.js'
import { until } from './until.js'

type CallRecord = ScheduleReply['calls'][number]

let calls = 0

/** Runs one call as a schedule of its own (posted to `server`, which may pass it on) and returns its record once it ended. */
export async function runCall(server: CrashChild, sessionId: string, name: string, input: object, createSession?: object): Promise<CallRecord> {
  const body = { sessionId, calls: [{ id: `call-${++calls}`, name, input }], ...(createSession === undefined ? {} : { createSession }) }
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', body)
  expect(accepted.status).toBe(202)
  const ended = await server.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=20`)
  expect(ended.body.status).toBe('completed')
  return ended.body.calls[0] as CallRecord
}

/** The model's text of a call that ended. */
export const modelText = (call: CallRecord): string => textOf(call.modelContent)

/** Starts `command` in the background and returns its task id. */
export async function startInBackground(server: CrashChild, sessionId: string, command: string, createSession?: object): Promise<string> {
  const started = modelText(await runCall(server, sessionId, 'Bash', { command, run_in_background: true, description: 'a long wait' }, createSession))
  const taskId = /with ID: (bash_[0-9a-f]{8})$/.exec(started)?.[1]
  if (taskId === undefined) throw new Error(`no task id in ${started}`)
  return taskId
}

/** Waits until the task has written `text` (TaskOutput without waiting). */
export async function outputShows(server: CrashChild, sessionId: string, taskId: string, text: string): Promise<void> {
  await until(async () => (modelText(await runCall(server, sessionId, 'TaskOutput', { task_id: taskId, block: false })).includes(text) ? true : undefined), `${taskId} to write ${text}`)
}

/** Kills the process whose pid a command wrote to `pidFile` (a command outlives the server killed under it). */
export function killWrittenPid(pidFile: string): void {
  if (!existsSync(pidFile)) return
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL')
  } catch {
    // gone already
  }
}
