import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksConfig } from '../../src/contracts/hook-config.js'
import type { ScheduleReply } from '../../src/contracts/api.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { hookName } from '../../src/hooks/config-hook-runner.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { noteTool, writeTool } from '../support/permission-tools.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { editTool, sleepTool } from '../support/tools.js'
import { bashHook, nodeHook, startHookServer, type HookServer } from '../support/hook-scripts/hooks.js'
import { configFile, SessionApi, type EventData } from '../support/hook-scripts/session-api.js'
import { textOf } from '../support/model-text.js'
import { matching } from '../support/matchers.js'

let hookServer: HookServer
let s: TestServer
let api: SessionApi
let hooks: HooksConfig

const command = (line: string, extra: { timeoutMs?: number; failClosed?: boolean } = {}) => ({ type: 'command' as const, command: line, ...extra })
const http = (route: string) => ({ type: 'http' as const, url: `${hookServer.url}${route}`, headers: { authorization: 'Bearer hook-token' } })
const PERMISSION_REQUEST_ALLOW = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }

function decisionFor(body: Record<string, unknown>): unknown {
  const note = (body.tool_input as { note?: string } | undefined)?.note
  if (note === 'allow') return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'the http hook knows this one' } }
  if (note === 'deny') return { permissionDecision: 'deny', reason: 'the http hook says no' }
  if (note === 'ask') return { permissionDecision: 'ask', reason: 'the http hook wants a person' }
  if (note === 'rewrite') return { updatedInput: { note: 'rewritten by http' } }
  return { additionalContext: `http saw ${String(note)}` }
}

beforeAll(async () => {
  hookServer = await startHookServer()
  hookServer.on('/pre', (body) => ({ body: decisionFor(body) }))
  hookServer.on('/deny', { body: { permissionDecision: 'deny', reason: 'the http hook disagrees' } })
  hookServer.on('/permission', { delayMs: 200, body: PERMISSION_REQUEST_ALLOW })
  hooks = {
    PreToolUse: [
      { matcher: 'Bash', hooks: [command(bashHook('guard.sh'))] },
      { matcher: 'Fetch', hooks: [http('/pre')] },
      { matcher: 'Strict', hooks: [command(nodeHook({ updatedInput: { note: 42 } }))] },
      { matcher: 'Write', hooks: [command(nodeHook({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { file_path: ' rewritten.txt ', content: 'from the hook' } } }))] },
      { matcher: 'Context', hooks: [command(bashHook('context.sh')), command(nodeHook({ additionalContext: 'second context' }, { delayMs: 100 }))] },
      { matcher: 'Disputed', hooks: [command(nodeHook({ permissionDecision: 'allow', additionalContext: 'allowed by node' })), http('/deny')] },
      { matcher: 'Crashy', hooks: [command(bashHook('crash.sh'))] },
      { matcher: 'Slow', hooks: [command(bashHook('hang.sh'), { timeoutMs: 300 })] },
      { matcher: 'Guarded', hooks: [command(bashHook('hang.sh'), { timeoutMs: 300, failClosed: true })] },
      { matcher: 'Refused', hooks: [command(nodeHook({ permissionDecision: 'deny', reason: 'refused', additionalContext: 'why: policy 7' }))] },
    ],
    PostToolUse: [{ matcher: 'Posted', hooks: [command(nodeHook({ decision: 'block', reason: 'tests failed after this change', additionalContext: 'run npm test' }))] }],
    PostToolUseFailure: [{ matcher: 'Edit|Sleep', hooks: [command(nodeHook({ additionalContext: 'interrupted={{is_interrupt}} error={{error}}' }))] }],
    PermissionRequest: [
      { matcher: 'Raced', hooks: [http('/permission')] },
      { matcher: 'Vetoed', hooks: [command(nodeHook({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'change freeze until Monday' } } }))] },
    ],
  }
  const names = ['Fetch', 'Strict', 'Context', 'Disputed', 'Crashy', 'Slow', 'Guarded', 'Refused', 'Posted']
  const tools: ToolEntry[] = [
    createBashTool(),
    writeTool().entry,
    editTool,
    sleepTool(),
    ...names.map((name) => noteTool(name, name === 'Fetch' ? 'network' : 'none').entry),
    noteTool('Raced', 'system').entry,
    noteTool('Vetoed', 'system').entry,
  ]
  s = await startTestServer({ env: { TOOLEXEC_CONFIG: await configFile({ hooks }) }, tools })
  api = new SessionApi(s)
})

afterAll(async () => {
  await s?.close()
  await hookServer?.close()
})

const of = (events: readonly EventData[], ...types: string[]): EventData[] => events.filter((event) => types.includes(event.type))
const hookRuns = (events: readonly EventData[]): string[][] => of(events, 'HookRunStarted', 'HookRunCompleted', 'HookRunBlocked', 'HookRunFailed').map((event) => [event.type, String(event.hook)])

async function runWithEvents(name: string, input: unknown, body: Record<string, unknown> = {}) {
  const sessionId = await api.session(body)
  const call = await api.run(sessionId, name, input)
  return { sessionId, call, events: await api.events(sessionId, call.scheduleId) }
}

describe('PreToolUse hooks over HTTP', () => {
  it('R14 an unchanged Claude Code bash script: its allow waives the ordinary ask, its exit code 2 blocks with stderr', async () => {
    const guard = hookName(command(bashHook('guard.sh')))
    const allowed = await runWithEvents('Bash', { command: 'mkdir -p hooked' })
    expect(allowed.call).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    expect(hookRuns(allowed.events)).toEqual([
      ['HookRunStarted', guard],
      ['HookRunCompleted', guard],
    ])
    const blocked = await runWithEvents('Bash', { command: 'rm -rf hooked' })
    expect(blocked.call).toMatchObject({ status: 'denied', modelContent: 'Blocked by guard.sh: rm -rf is not allowed here' })
    expect(hookRuns(blocked.events)).toEqual([
      ['HookRunStarted', guard],
      ['HookRunBlocked', guard],
    ])
    expect(of(blocked.events, 'PermissionResolved')).toEqual([expect.objectContaining({ decision: 'deny', decidedBy: 'hook', ruleId: `hook.PreToolUse: ${guard}` })])
  })

  it('R14 an HTTP hook gives every decision: allow, deny, ask, updatedInput and additionalContext', async () => {
    const allow = await runWithEvents('Fetch', { note: 'allow' })
    expect(allow.call).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    const deny = await runWithEvents('Fetch', { note: 'deny' })
    expect(deny.call).toMatchObject({ status: 'denied', modelContent: 'the http hook says no' })
    const sessionId = await api.session()
    const { request } = await api.runAnswering(sessionId, 'Fetch', { note: 'ask' }, { decision: 'allow' })
    expect(request.reason).toBe('the http hook wants a person')
    const rewritten = await api.runAnswering(await api.session(), 'Fetch', { note: 'rewrite' }, { decision: 'allow' })
    expect(rewritten.request.input).toEqual({ note: 'rewritten by http' })
    expect(rewritten.call).toMatchObject({ resolvedInput: { note: 'rewritten by http' }, modelContent: 'done Fetch' })
    const context = await api.runAnswering(await api.session(), 'Fetch', { note: 'hello' }, { decision: 'allow' })
    expect(context.call.modelContent).toBe('done Fetch\n\n[Hook additional context]\n#1\nhttp saw hello')
    const received = hookServer.received.filter((entry) => entry.path === '/pre')
    expect(received.at(-1)).toMatchObject({
      headers: { authorization: 'Bearer hook-token' },
      body: { hook_event_name: 'PreToolUse', tool_name: 'Fetch', tool_input: { note: 'hello' }, cwd: s.dataDir },
    })
  })

  it('R13 a rewritten input is resolved again: the approval and the handler see the same normalized input', async () => {
    const sessionId = await api.session()
    const { request, call } = await api.runAnswering(sessionId, 'Write', { file_path: 'asked-for.txt', content: 'from the model' }, { decision: 'allow' })
    const written = path.join(s.dataDir, 'rewritten.txt')
    expect(request.input).toEqual({ file_path: written, content: 'from the hook' })
    expect(call).toMatchObject({ status: 'succeeded', resolvedInput: { file_path: written, content: 'from the hook' } })
    expect(await readFile(written, 'utf8')).toBe('from the hook')
  })

  it('R13 R26 an updatedInput that fails validation fails the call with the projected message, not the first-validation text', async () => {
    const { call } = await runWithEvents('Strict', { note: 'fine' })
    expect(call).toMatchObject({
      status: 'failed',
      modelContent:
        "The PreToolUse hook's updatedInput is invalid: InputValidationError: Strict failed due to the following issue: The parameter `note` type is expected as `string` but provided as `number`",
    })
  })

  it('R29 additional context of every matching hook reaches the model numbered, plain text from bash included', async () => {
    const { call, events } = await runWithEvents('Context', {})
    expect(call.modelContent).toBe(`done Context\n\n[Hook additional context]\n#1\nStyle guide applies to Context in ${s.dataDir}\n#2\nsecond context`)
    expect(of(events, 'HookRunCompleted')).toHaveLength(2)
  })

  it('R29 a refused call carries the hook context too', async () => {
    const { call } = await runWithEvents('Refused', {})
    expect(call).toMatchObject({ status: 'denied', modelContent: 'refused\n\n[Hook additional context]\n#1\nwhy: policy 7' })
  })

  it('R14 two hooks that disagree: deny wins over allow (A11), both runs are visible', async () => {
    const { call, events } = await runWithEvents('Disputed', {})
    expect(call).toMatchObject({ status: 'denied', modelContent: 'the http hook disagrees\n\n[Hook additional context]\n#1\nallowed by node' })
    expect(
      hookRuns(events)
        .map(([type]) => type)
        .sort(),
    ).toEqual(['HookRunBlocked', 'HookRunCompleted', 'HookRunStarted', 'HookRunStarted'])
    expect(of(events, 'PermissionResolved')[0]).toMatchObject({ decidedBy: 'hook', ruleId: `hook.PreToolUse: http: ${hookServer.url}/deny` })
  })

  it('R14 a crashing hook is a HookRunFailed event and the call goes on', async () => {
    const { call, events } = await runWithEvents('Crashy', {})
    expect(call).toMatchObject({ status: 'succeeded', modelContent: 'done Crashy' })
    expect(of(events, 'HookRunFailed')).toEqual([expect.objectContaining({ hookEvent: 'PreToolUse', error: 'Hook exited with code 3: hook crashed: cannot reach the policy server' })])
  })

  it('R14 a hook that hangs past its timeout falls through to the rules; marked failClosed, it denies', async () => {
    const slow = await runWithEvents('Slow', {})
    expect(slow.call).toMatchObject({ status: 'succeeded' })
    expect(of(slow.events, 'HookRunFailed')).toEqual([expect.objectContaining({ error: 'Hook timed out after 300ms' })])
    const closed = await runWithEvents('Guarded', {})
    const name = hookName(command(bashHook('hang.sh'), { timeoutMs: 300, failClosed: true }))
    expect(closed.call).toMatchObject({ status: 'denied', modelContent: `PreToolUse hook ${name} failed and is marked failClosed: Hook timed out after 300ms` })
    expect(hookRuns(closed.events).map(([type]) => type)).toEqual(['HookRunStarted', 'HookRunBlocked'])
  })
})

describe('post hooks over HTTP', () => {
  it('R29 PostToolUse block: the model sees the reason and the context', async () => {
    const { call, events } = await runWithEvents('Posted', {})
    expect(call.status).toBe('failed')
    expect(call.modelContent).toBe('PostToolUse hook blocked this result: tests failed after this change\n\n[Hook additional context]\n#1\nrun npm test')
    expect(of(events, 'HookRunBlocked')).toEqual([expect.objectContaining({ hookEvent: 'PostToolUse', reason: 'tests failed after this change' })])
  })

  it('R24 PostToolUseFailure runs for a failure with isInterrupt false and for a cancellation with isInterrupt true', async () => {
    const failed = await runWithEvents('Edit', { file_path: 'x.txt', fail: true }, { permissionMode: 'acceptEdits' })
    expect(failed.call.modelContent).toBe('cannot edit x.txt\n\n[Hook additional context]\n#1\ninterrupted=false error=cannot edit x.txt')
    const sessionId = await api.session()
    const scheduleId = await api.accept(sessionId, [{ id: 'sleeper', name: 'Sleep', input: { ms: 10_000 } }])
    for (let status = ''; status !== 'running';) {
      status = (await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}`)).body.calls[0]?.status ?? ''
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect((await s.json('POST', `/sessions/${sessionId}/abort`)).status).toBe(200)
    const [call] = (await api.finished(scheduleId)).calls
    expect(call?.status).toBe('cancelled')
    expect(textOf(call?.modelContent)).toMatch(/\n\n\[Hook additional context\]\n#1\ninterrupted=true error=/)
    const events = await api.events(sessionId, scheduleId)
    expect(of(events, 'HookRunCompleted')).toEqual([expect.objectContaining({ hookEvent: 'PostToolUseFailure', callId: 'sleeper' })])
  })
})

describe('R16 PermissionRequest hooks race the HTTP client', () => {
  it('R16 a command hook can deny the request: decided by the hook, its message reaches the model', async () => {
    const sessionId = await api.session()
    const call = await api.run(sessionId, 'Vetoed', {})
    expect(call).toMatchObject({ status: 'denied', modelContent: 'change freeze until Monday' })
    const events = await api.events(sessionId, call.scheduleId)
    expect(of(events, 'PermissionResolved')).toEqual([expect.objectContaining({ decision: 'deny', decidedBy: 'hook', ruleId: matching(/^hook\.PermissionRequest: command: node /) })])
  })

  it('R16 the client answers at once, before the hook that answers after 200 ms: the client wins', async () => {
    const sessionId = await api.session()
    const scheduleId = await api.accept(sessionId, [{ id: 'raced', name: 'Raced', input: {} }])
    const request = await api.pending(sessionId)
    const reply = await api.answer(request.id, { decision: 'deny', message: 'the client was first' })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ status: 'deny', decidedBy: 'client' })
    const [call] = (await api.finished(scheduleId)).calls
    expect(call).toMatchObject({ status: 'denied', modelContent: 'the client was first' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const again = await api.answer(request.id, { decision: 'allow' })
    expect(again.status).toBe(409)
    expect(again.body.error?.details).toEqual({ decision: 'deny', decidedBy: 'client', deciderId: 'local', deciderName: 'local (no TOOLEXEC_TOKEN)' })
    const events = await api.events(sessionId, scheduleId)
    expect(of(events, 'PermissionResolved')).toEqual([expect.objectContaining({ decision: 'deny', decidedBy: 'client' })])
    expect(of(events, 'HookRunStarted')).toEqual([expect.objectContaining({ hookEvent: 'PermissionRequest' })])
  })

  it('R16 the hook answers after 200 ms, before the client: a later client answer is a 409 saying the hook decided', async () => {
    const sessionId = await api.session()
    const started = Date.now()
    const scheduleId = await api.accept(sessionId, [{ id: 'raced', name: 'Raced', input: {} }])
    const request = await api.pending(sessionId)
    const [call] = (await api.finished(scheduleId)).calls
    expect(Date.now() - started).toBeGreaterThanOrEqual(200)
    expect(call).toMatchObject({ status: 'succeeded', result: { permission: 'approved' } })
    const late = await api.answer(request.id, { decision: 'deny' })
    expect(late.status).toBe(409)
    expect(late.body.error).toEqual({
      code: 'API_ERR_PERMISSION_DECIDED',
      message: `Permission request ${request.id} was already decided: allow by hook; a decision is valid once`,
      details: { decision: 'allow', decidedBy: 'hook' },
    })
    const events = await api.events(sessionId, scheduleId)
    expect(of(events, 'PermissionResolved')).toEqual([
      expect.objectContaining({ decision: 'allow', decidedBy: 'hook', reason: 'Allowed by PermissionRequest hook', ruleId: `hook.PermissionRequest: http: ${hookServer.url}/permission` }),
    ])
    expect(hookRuns(events).map(([type]) => type)).toEqual(['HookRunStarted', 'HookRunCompleted'])
  })
})
