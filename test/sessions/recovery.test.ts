/**
 * Crash recovery in process, on a real SQLite file: a first runtime writes the state a
 * SIGKILL leaves behind straight through its store, a second runtime on the same data dir
 * recovers it.
 */
import { randomUUID } from 'node:crypto'
import os from 'node:os'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import type { ScheduleReply } from '../../src/contracts/api.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import type { StoredEvent } from '../../src/contracts/store.js'
import { TURN_STOP_TEXT } from '../../src/executor/batch-runner.js'
import { SUBAGENT_TERMINAL } from '../../src/executor/turn-control.js'
import { INTERRUPTED_TEXT } from '../../src/sessions/recovery.js'
import { createRuntime, type Runtime } from '../../src/wiring.js'
import type { Store, UnitOfWork } from '../../src/contracts/store.js'
import { crashTools, runKey, runsByCall } from '../support/crash-tools.js'
import { rowCounts } from '../support/row-counts.js'
import { until } from '../support/until.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'
import { ALL_SCOPES, NO_LIMITS, type Principal } from '../../src/contracts/access.js'

/** Who answers the approvals, as the audit log names them. */
const PERSON: Principal = { id: 'key_reviewer', name: 'reviewer', kind: 'key', scopes: ALL_SCOPES, limits: NO_LIMITS, expiresAt: null }

const runtimes: Runtime[] = []

afterEach(() => {
  for (const runtime of runtimes.splice(0)) void runtime.close()
})

async function openRuntime(dataDir: string, markerDir: string): Promise<Runtime> {
  const runtime = await createRuntime({ dataDir, workspace: dataDir, tools: crashTools(markerDir), logger: pino({ level: 'silent' }) })
  runtimes.push(runtime)
  return runtime
}

/** A request answered and recorded (PermissionResolved committed) whose call had not started. */
interface Answered {
  readonly decision: 'allow' | 'deny'
  readonly message?: string
  /** What the person was shown, when it differs from the call's input. */
  readonly askedInput?: unknown
}

interface SeededCall {
  readonly id: string
  readonly name: string
  readonly input: unknown
  readonly state: 'pending' | 'running' | 'awaiting_permission' | Answered | ToolExecutionResult
}

/** Writes what a killed server leaves behind: rows and events, as the journal would have. */
class CrashState {
  readonly #runtime: Runtime
  readonly #seq = new Map<string, number>()
  readonly permissionIds = new Map<string, string>()

  constructor(runtime: Runtime) {
    this.#runtime = runtime
  }

  get #store(): Store {
    return this.#runtime.store
  }

  /** The schedule, its calls and their events, committed as one unit. */
  async schedule(sessionId: string, scheduleId: string, status: 'open' | 'queued' | 'running', calls: readonly SeededCall[]): Promise<void> {
    const at = new Date().toISOString()
    const isNew = (await this.#store.sessions.get(sessionId)) === undefined
    await this.#store.commit((unit) => {
      if (isNew) unit.sessions.insert({ id: sessionId, workspace: os.tmpdir(), permissionMode: 'default', interactive: true, permissionTimeoutMs: null, createdAt: at })
      // An open schedule is planned only at its close.
      const groups = status === 'open' ? [] : calls.map((call) => [call.id])
      unit.schedules.insert({ id: scheduleId, sessionId, turnId: `turn-${scheduleId}`, status, groups, createdAt: at })
      this.#event(unit, sessionId, 'ScheduleAccepted', { scheduleId, turnId: `turn-${scheduleId}`, groups })
      calls.forEach((call, position) => {
        unit.schedules.insertCall({ sessionId, id: call.id, scheduleId, position, name: call.name, input: call.input })
        this.#advance(unit, sessionId, call, at)
      })
    })
  }

  /** The client's abort, acknowledged before the crash. */
  async abort(sessionId: string): Promise<void> {
    await this.#runtime.sessions.abort(sessionId)
  }

  #advance(unit: UnitOfWork, sessionId: string, call: SeededCall, at: string): void {
    if (call.state === 'pending') return
    if (call.state === 'awaiting_permission') {
      this.#ask(unit, sessionId, call, call.input, at)
      return
    }
    if (call.state !== 'running' && 'decision' in call.state) {
      const answer = call.state
      const permissionId = this.#ask(unit, sessionId, call, answer.askedInput ?? call.input, at)
      unit.approvals.decide(permissionId, { status: answer.decision, decidedBy: 'client', message: answer.message ?? null, scope: 'once', decidedAt: at })
      if (answer.decision === 'allow') unit.schedules.setCallStatus(sessionId, call.id, 'pending')
      this.#event(unit, sessionId, 'PermissionResolved', { permissionId, callId: call.id, toolName: call.name, decision: answer.decision, decidedBy: 'client', reason: answer.message })
      return
    }
    const flags = this.#runtime.executor.flagsOf(call)
    if (flags === undefined) throw new Error(`no flags for ${call.name}`)
    unit.schedules.markCallRunning(sessionId, call.id, call.input, flags, at)
    this.#event(unit, sessionId, 'ToolCallStarted', { callId: call.id, toolName: call.name, input: call.input, flags })
    if (call.state === 'running') return
    unit.schedules.completeCall(sessionId, call.state, at)
    this.#event(unit, sessionId, 'ToolCallResult', { callId: call.id, toolName: call.name, result: call.state })
  }

  #ask(unit: UnitOfWork, sessionId: string, call: SeededCall, input: unknown, at: string): string {
    const permissionId = `perm_${randomUUID()}`
    this.permissionIds.set(call.id, permissionId)
    const request = { id: permissionId, sessionId, callId: call.id, toolName: call.name, input, preview: undefined }
    unit.approvals.insert({ ...request, riskLevel: 'medium', reason: `Tool ${call.name} requires approval`, suggestedRule: null, createdAt: at })
    unit.schedules.setCallStatus(sessionId, call.id, 'awaiting_permission')
    this.#event(unit, sessionId, 'PermissionRequested', { permissionId, callId: call.id, toolName: call.name, input, riskLevel: 'medium' })
    return permissionId
  }

  #event(unit: UnitOfWork, sessionId: string, type: string, fields: Record<string, unknown>): void {
    const seq = (this.#seq.get(sessionId) ?? 0) + 1
    this.#seq.set(sessionId, seq)
    const at = new Date().toISOString()
    unit.events.insert({ sessionId, seq, type, data: JSON.stringify({ type, sessionId, seq, at, ...fields }) }, at)
  }
}

const read = (id: string, state: SeededCall['state'] = 'pending'): SeededCall => ({ id, name: 'Read', input: { file_path: `${id}.txt` }, state })
const edit = (id: string, state: SeededCall['state'] = 'pending'): SeededCall => ({ id, name: 'Edit', input: { file_path: `${id}.txt` }, state })
const sleep = (id: string, state: SeededCall['state'] = 'pending'): SeededCall => ({ id, name: 'Sleep', input: { ms: 5 }, state })

/** A success stored before the crash; with `stopTurn` it carries the turn-stop signal (R9). */
function successResult(callId: string, stopTurn = false): ToolExecutionResult {
  const text = 'final answer submitted'
  const bytes = Buffer.byteLength(text)
  return {
    callId,
    toolName: 'Read',
    success: true,
    status: 'succeeded',
    isError: false,
    modelContent: text,
    output: text,
    ...(stopTurn ? { control: { turnControl: SUBAGENT_TERMINAL } } : null),
    serialization: { truncated: false, originalBytes: bytes, actualBytes: bytes, strategy: 'inline' },
    perf: { totalMs: 1, permissionWaitMs: 0, queuedMs: 0 },
    permission: 'none',
    hookContext: [],
  }
}

/** A crashed data dir: seeded and closed by one runtime, reopened by a second one that is returned. */
async function crashAndReopen(seed: (state: CrashState) => Promise<void>): Promise<{ runtime: Runtime; markerDir: string; state: CrashState; dataDir: string }> {
  const dataDir = tempDirSync('recovery')
  const markerDir = tempDirSync('recovery-runs')
  const first = await createRuntime({ dataDir, workspace: dataDir, tools: crashTools(markerDir), logger: pino({ level: 'silent' }) })
  const state = new CrashState(first)
  await seed(state)
  // The directory is given back once the database is closed.
  await first.close()
  return { runtime: await openRuntime(dataDir, markerDir), markerDir, state, dataDir }
}

const callOf = (reply: ScheduleReply, id: string) => reply.calls.find((call) => call.id === id)
const events = (runtime: Runtime, sessionId: string): Promise<StoredEvent[]> => runtime.store.events.after(sessionId, 0, 10_000)
const parsed = (event: StoredEvent): Record<string, unknown> => JSON.parse(event.data) as Record<string, unknown>

describe('recoverUnfinished', () => {
  it('R39 ends a call whose handler had started as interrupted, never runs it again, and runs the calls after it', async () => {
    const { runtime, markerDir } = await crashAndReopen(async (state) => {
      await state.schedule('s-run', 'sch-run', 'running', [sleep('run-1', 'running'), read('next-1')])
      await state.schedule('s-run', 'sch-queued', 'queued', [read('queued-1'), sleep('queued-2')])
    })
    expect(await runtime.recover()).toEqual({ schedules: 2, interrupted: 1, resumed: 3 })
    const running = await runtime.schedules.waitFor('sch-run', 5)
    const queued = await runtime.schedules.waitFor('sch-queued', 5)
    expect([running.status, queued.status]).toEqual(['completed', 'completed'])
    expect(callOf(running, 'run-1')).toMatchObject({ status: 'interrupted', modelContent: INTERRUPTED_TEXT })
    expect(callOf(running, 'run-1')?.result).toMatchObject({ success: false, isError: true, error: { errorClass: 'interrupted' } })
    expect([callOf(running, 'next-1')?.status, ...queued.calls.map((call) => call.status)]).toEqual(['succeeded', 'succeeded', 'succeeded'])
    const runs = runsByCall(markerDir)
    expect(runs.has(runKey('s-run', 'run-1'))).toBe(false)
    for (const id of ['next-1', 'queued-1', 'queued-2']) expect(runs.get(runKey('s-run', id)), id).toHaveLength(1)
    expect((await runtime.sessions.history('s-run')).map((entry) => entry.callId)).toEqual(['run-1', 'next-1', 'queued-1', 'queued-2'])
  })

  it('closes a schedule that was still open for streamed calls: its record shows the plan its calls then ran in', async () => {
    const { runtime, markerDir } = await crashAndReopen(async (state) => {
      await state.schedule('s-open', 'sch-open', 'open', [read('early-1', successResult('early-1')), read('held-1'), read('held-2')])
    })
    expect(await runtime.recover()).toEqual({ schedules: 1, interrupted: 0, resumed: 2 })
    const reply = await runtime.schedules.waitFor('sch-open', 5)
    expect([reply.status, reply.groups]).toEqual(['completed', [['held-1', 'held-2']]])
    expect(reply.calls.map((call) => call.status)).toEqual(['succeeded', 'succeeded', 'succeeded'])
    for (const id of ['held-1', 'held-2']) expect(runsByCall(markerDir).get(runKey('s-open', id)), id).toHaveLength(1)
  })

  it('R9 cancels a pending call whose earlier sibling result stopped the turn, without asking or running it', async () => {
    const { runtime, markerDir } = await crashAndReopen(async (state) => {
      await state.schedule('s-stop', 'sch-stop', 'running', [read('stop-1', successResult('stop-1', true)), edit('after-stop')])
    })
    expect(await runtime.recover()).toEqual({ schedules: 1, interrupted: 0, resumed: 1 })
    const reply = await runtime.schedules.waitFor('sch-stop', 5)
    expect(reply.status).toBe('stopped')
    expect(callOf(reply, 'stop-1')).toMatchObject({ status: 'succeeded', modelContent: 'final answer submitted' })
    expect(callOf(reply, 'after-stop')).toMatchObject({ status: 'cancelled', modelContent: TURN_STOP_TEXT })
    expect(await runtime.sessions.pendingPermissions('s-stop')).toEqual([])
    expect(runsByCall(markerDir).has(runKey('s-stop', 'after-stop'))).toBe(false)
  })

  it('R37 appends every recovered outcome to the session sequence with no gap or duplicate', async () => {
    const { runtime } = await crashAndReopen(async (state) => {
      await state.schedule('s-seq', 'sch-seq', 'running', [read('done-1', successResult('done-1')), sleep('run-2', 'running'), read('next-2')])
    })
    const before = await events(runtime, 's-seq')
    await runtime.recover()
    await runtime.schedules.waitFor('sch-seq', 5)
    const after = await events(runtime, 's-seq')
    expect(after.map((event) => event.seq)).toEqual(Array.from({ length: after.length }, (_, i) => i + 1))
    expect(after.slice(0, before.length)).toEqual(before)
    const appended = after.slice(before.length).map(parsed)
    expect(appended[0]).toMatchObject({ type: 'ToolCallResult', callId: 'run-2', result: { status: 'interrupted', modelContent: INTERRUPTED_TEXT } })
    expect(appended.filter((event) => event.type === 'ToolCallResult').map((event) => event.callId)).toEqual(['run-2', 'next-2'])
    expect(appended[appended.length - 1]).toMatchObject({ type: 'ScheduleCompleted', scheduleId: 'sch-seq', status: 'completed' })
    expect((await runtime.sessions.view('s-seq'))?.lastEventId).toBe(after.length)
  })
})

describe('recovering a session aborted before the crash', () => {
  it('ends the calls of schedules accepted before the abort cancelled, never runs them, and resolves their approval as abort', async () => {
    const { runtime, markerDir, state } = await crashAndReopen(async (seed) => {
      await seed.schedule('s-abort', 'sch-aborted', 'running', [sleep('ab-run', 'running'), edit('ab-ask', 'awaiting_permission'), read('ab-next')])
      await seed.schedule('s-abort', 'sch-aborted-queued', 'queued', [read('ab-queued')])
      await seed.abort('s-abort')
      await seed.schedule('s-abort', 'sch-after-abort', 'queued', [read('after-abort')])
    })
    await runtime.recover()
    const aborted = await runtime.schedules.waitFor('sch-aborted', 5)
    const queued = await runtime.schedules.waitFor('sch-aborted-queued', 5)
    const after = await runtime.schedules.waitFor('sch-after-abort', 5)
    expect([aborted.status, queued.status, after.status]).toEqual(['cancelled', 'cancelled', 'completed'])
    expect([...aborted.calls, ...queued.calls, ...after.calls].map((call) => [call.id, call.status])).toEqual([
      ['ab-run', 'interrupted'],
      ['ab-ask', 'cancelled'],
      ['ab-next', 'cancelled'],
      ['ab-queued', 'cancelled'],
      ['after-abort', 'succeeded'],
    ])
    const runs = runsByCall(markerDir)
    for (const id of ['ab-run', 'ab-ask', 'ab-next', 'ab-queued']) expect(runs.has(runKey('s-abort', id)), id).toBe(false)
    expect(runs.get(runKey('s-abort', 'after-abort'))).toHaveLength(1)
    expect(await runtime.sessions.pendingPermissions('s-abort')).toEqual([])
    expect(await runtime.store.approvals.get(state.permissionIds.get('ab-ask') ?? '')).toMatchObject({ status: 'deny', decidedBy: 'abort' })
  })
})

describe('recovering a call that was waiting for approval', () => {
  type Timing = 'before recover()' | 'right after recover(), before the gate' | 'after the request is re-opened'
  const timings: Timing[] = ['before recover()', 'right after recover(), before the gate', 'after the request is re-opened']

  it.each(timings)('R16 keeps the pending request and its id; an allow answered %s is not lost and the call runs once', async (timing) => {
    const { runtime, markerDir, state } = await crashAndReopen((seed) => seed.schedule('s-ask', 'sch-ask', 'running', [edit('ask-1', 'awaiting_permission')]))
    const permissionId = state.permissionIds.get('ask-1') ?? ''
    expect((await runtime.sessions.pendingPermissions()).map((request) => [request.id, request.callId])).toEqual([[permissionId, 'ask-1']])
    const reopened = new Promise<Record<string, unknown>>((resolve) => {
      runtime.bus.subscribe('s-ask', (event) => {
        if (event.type === 'PermissionRequested') resolve(parsed(event))
      })
    })
    const allow = async () => expect(await runtime.sessions.answerPermission(permissionId, { decision: 'allow' }, PERSON)).toMatchObject({ id: permissionId, status: 'allow' })
    if (timing === 'before recover()') await allow()
    await runtime.recover()
    if (timing === 'right after recover(), before the gate') await allow()
    expect(await reopened).toMatchObject({ permissionId, callId: 'ask-1' })
    if (timing === 'after the request is re-opened') await allow()
    const reply = await runtime.schedules.waitFor('sch-ask', 5)
    expect(reply.status).toBe('completed')
    expect(callOf(reply, 'ask-1')).toMatchObject({ status: 'succeeded', result: { permission: 'approved' } })
    expect(runsByCall(markerDir).get(runKey('s-ask', 'ask-1'))).toHaveLength(1)
    expect(await runtime.store.approvals.get(permissionId)).toMatchObject({ status: 'allow', decidedBy: 'client' })
    expect((await rowCounts(runtime)).permission_requests).toBe(1)
    const resolved = (await events(runtime, 's-ask')).map(parsed).filter((event) => event.type === 'PermissionResolved')
    expect(resolved).toEqual([expect.objectContaining({ permissionId, decision: 'allow', decidedBy: 'client' })])
  })

  it('R16 delivers an early deny with its message to the model and never runs the call', async () => {
    const { runtime, markerDir, state } = await crashAndReopen((seed) => seed.schedule('s-deny', 'sch-deny', 'running', [edit('deny-1', 'awaiting_permission')]))
    const permissionId = state.permissionIds.get('deny-1') ?? ''
    await runtime.recover()
    await runtime.sessions.answerPermission(permissionId, { decision: 'deny', message: 'Leave that file alone' }, PERSON)
    await expect(runtime.sessions.answerPermission(permissionId, { decision: 'allow' }, PERSON)).rejects.toMatchObject({ code: 'API_ERR_PERMISSION_DECIDED' })
    const reply = await runtime.schedules.waitFor('sch-deny', 5)
    expect(callOf(reply, 'deny-1')).toMatchObject({ status: 'denied' })
    expect(JSON.stringify(callOf(reply, 'deny-1')?.modelContent)).toContain('Leave that file alone')
    expect(runsByCall(markerDir).has(runKey('s-deny', 'deny-1'))).toBe(false)
  })

  it('keeps a deny recorded before the crash: the call is not asked again, ends denied with the message, and never runs', async () => {
    const denied = { decision: 'deny', message: 'Not before the release' } as const
    const { runtime, markerDir, state } = await crashAndReopen((seed) => seed.schedule('s-denied', 'sch-denied', 'running', [edit('denied-1', denied)]))
    const permissionId = state.permissionIds.get('denied-1') ?? ''
    await runtime.recover()
    const reply = await runtime.schedules.waitFor('sch-denied', 5)
    expect(callOf(reply, 'denied-1')).toMatchObject({ status: 'denied' })
    expect(JSON.stringify(callOf(reply, 'denied-1')?.modelContent)).toContain(denied.message)
    expect(runsByCall(markerDir).has(runKey('s-denied', 'denied-1'))).toBe(false)
    expect((await rowCounts(runtime)).permission_requests).toBe(1)
    expect(await runtime.store.approvals.get(permissionId)).toMatchObject({ status: 'deny', decidedBy: 'client' })
    const asked = (await events(runtime, 's-denied')).map(parsed).filter((event) => event.type === 'PermissionRequested')
    for (const event of asked) expect(event.permissionId).toBe(permissionId)
  })

  it('keeps an allow recorded before the crash: the call runs once after it without being asked again', async () => {
    const { runtime, markerDir, state } = await crashAndReopen((seed) => seed.schedule('s-allowed', 'sch-allowed', 'running', [edit('allowed-1', { decision: 'allow' })]))
    await runtime.recover()
    const reply = await runtime.schedules.waitFor('sch-allowed', 5)
    expect(callOf(reply, 'allowed-1')).toMatchObject({ status: 'succeeded', result: { permission: 'approved' } })
    expect(runsByCall(markerDir).get(runKey('s-allowed', 'allowed-1'))).toHaveLength(1)
    expect((await rowCounts(runtime)).permission_requests).toBe(1)
    expect(await runtime.store.approvals.get(state.permissionIds.get('allowed-1') ?? '')).toMatchObject({ status: 'allow', decidedBy: 'client' })
  })

  it('keeps an answer given after a restart, before its call asked again, across a second crash', async () => {
    const { runtime, markerDir, state, dataDir } = await crashAndReopen((seed) => seed.schedule('s-early', 'sch-early', 'running', [edit('early-1', 'awaiting_permission')]))
    const permissionId = state.permissionIds.get('early-1') ?? ''
    await runtime.sessions.answerPermission(permissionId, { decision: 'deny', message: 'Not this file' }, PERSON)
    await runtime.close()
    const third = await openRuntime(dataDir, markerDir)
    await third.recover()
    const reply = await third.schedules.waitFor('sch-early', 5)
    expect(callOf(reply, 'early-1')).toMatchObject({ status: 'denied' })
    expect(JSON.stringify(callOf(reply, 'early-1')?.modelContent)).toContain('Not this file')
    expect(runsByCall(markerDir).has(runKey('s-early', 'early-1'))).toBe(false)
    expect((await rowCounts(third)).permission_requests).toBe(1)
  })

  it('keeps an answer confirmed to a waiting call when the server dies right after the reply', async () => {
    const { runtime, markerDir, state, dataDir } = await crashAndReopen((seed) => seed.schedule('s-live', 'sch-live', 'running', [edit('live-1', 'awaiting_permission')]))
    const permissionId = state.permissionIds.get('live-1') ?? ''
    await runtime.recover()
    const askedAgain = async (): Promise<true | undefined> => ((await events(runtime, 's-live')).map(parsed).filter((event) => event.type === 'PermissionRequested').length === 2 ? true : undefined)
    await until(askedAgain)
    await runtime.sessions.answerPermission(permissionId, { decision: 'allow', scope: 'session' }, PERSON)
    // Nothing runs between the reply and the stop: the decision's event is never committed.
    await runtime.close()
    const third = await openRuntime(dataDir, markerDir)
    await third.recover()
    const reply = await third.schedules.waitFor('sch-live', 5)
    expect(callOf(reply, 'live-1')).toMatchObject({ status: 'succeeded', result: { permission: 'approved' } })
    expect(runsByCall(markerDir).get(runKey('s-live', 'live-1'))).toHaveLength(1)
    expect((await rowCounts(third)).permission_requests).toBe(1)
    expect(await third.store.approvals.hasGrant('s-live', 'Edit', 'Edit')).toBe(true)
  })

  it('asks again when the pending request showed other input than the call now has, and closes the old request', async () => {
    const { runtime, markerDir, state } = await crashAndReopen((seed) => seed.schedule('s-moved', 'sch-moved', 'running', [edit('moved-1', 'awaiting_permission')]))
    const oldId = state.permissionIds.get('moved-1') ?? ''
    // What the person was shown before the restart; the call now resolves to other input.
    sqliteDatabaseOf(runtime.store)
      .prepare('UPDATE permission_requests SET input_json = ? WHERE id = ?')
      .run(JSON.stringify({ file_path: 'elsewhere.txt' }), oldId)
    await runtime.recover()
    const fresh = await until(async () => (await runtime.sessions.pendingPermissions('s-moved')).find((request) => request.id !== oldId))
    expect(fresh).toMatchObject({ callId: 'moved-1', input: { file_path: 'moved-1.txt' } })
    expect(await runtime.sessions.pendingPermissions('s-moved')).toEqual([fresh])
    await expect(runtime.sessions.answerPermission(oldId, { decision: 'allow' }, PERSON)).rejects.toThrow(/closed \(the server closed it: Closed: after a restart/)
    // A client drawing the old dialog learns from the stream that it closed, before the new one opens.
    const permissionEvents = (await events(runtime, 's-moved')).map(parsed).filter((event) => String(event.type).startsWith('Permission'))
    expect(permissionEvents.slice(-2)).toMatchObject([
      { type: 'PermissionResolved', permissionId: oldId, callId: 'moved-1', decision: 'deny', decidedBy: 'broker' },
      { type: 'PermissionRequested', permissionId: fresh.id, callId: 'moved-1' },
    ])
    expect(runsByCall(markerDir).has(runKey('s-moved', 'moved-1'))).toBe(false)
    await runtime.sessions.answerPermission(fresh.id, { decision: 'allow' }, PERSON)
    expect(callOf(await runtime.schedules.waitFor('sch-moved', 5), 'moved-1')).toMatchObject({ status: 'succeeded' })
    expect(runsByCall(markerDir).get(runKey('s-moved', 'moved-1'))).toHaveLength(1)
  })

  it('asks again when the recorded answer was given for other input than the call now has', async () => {
    const answered = { decision: 'allow', askedInput: { file_path: 'elsewhere.txt' } } as const
    const { runtime, markerDir, state } = await crashAndReopen((seed) => seed.schedule('s-changed', 'sch-changed', 'running', [edit('changed-1', answered)]))
    await runtime.recover()
    const fresh = await until(async () => (await runtime.sessions.pendingPermissions('s-changed'))[0])
    expect(fresh).toMatchObject({ callId: 'changed-1', input: { file_path: 'changed-1.txt' } })
    expect(fresh.id).not.toBe(state.permissionIds.get('changed-1'))
    expect(runsByCall(markerDir).has(runKey('s-changed', 'changed-1'))).toBe(false)
    await runtime.sessions.answerPermission(fresh.id, { decision: 'allow' }, PERSON)
    expect(callOf(await runtime.schedules.waitFor('sch-changed', 5), 'changed-1')).toMatchObject({ status: 'succeeded' })
  })
})
