import { describe, expect, it } from 'vitest'
import type { ErrorReply, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { useHttpSuite } from '../support/http-suite.js'
import { rowCounts } from '../support/row-counts.js'
import { settledRowCounts, type TestServer } from '../support/server.js'
import { dataOf, type SseClient } from '../support/sse-client.js'

let s: TestServer
const suite = useHttpSuite((server) => {
  s = server
})
const fresh = suite.fresh

async function watch(sessionId: string): Promise<SseClient> {
  return suite.watch(s, sessionId)
}

async function accept(sessionId: string, calls: unknown[], extra: Record<string, unknown> = {}): Promise<ScheduleAcceptedReply> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls, ...extra })
  expect(reply.status).toBe(202)
  return reply.body
}

async function finished(scheduleId: string): Promise<ScheduleReply> {
  const reply = await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)
  expect(reply.status).toBe(200)
  expect(['completed', 'stopped', 'cancelled']).toContain(reply.body.status)
  return reply.body
}

const read = (id: string, file = `${id}.txt`): unknown => ({ id, name: 'Read', input: { file_path: file } })
const edit = (id: string): unknown => ({ id, name: 'Edit', input: { file_path: `${id}.txt` } })
const sleep = (id: string, ms: number): unknown => ({ id, name: 'Sleep', input: { ms } })

describe('POST /schedules', () => {
  it('R5 replies 202 with the schedule, its groups in the model order and every call with its flags (R3)', async () => {
    const sessionId = fresh('shape')
    await s.json('POST', '/sessions', { id: sessionId, permissionMode: 'bypassPermissions' })
    const calls = [read('a'), read('b'), edit('c'), sleep('d', 1), edit('e'), read('f')]
    const reply = await accept(sessionId, calls, { turnId: 'turn-7' })
    expect(reply.scheduleId).toMatch(/^sch_[0-9a-f-]{36}$/)
    expect(reply).toMatchObject({ sessionId, turnId: 'turn-7', status: 'queued' })
    expect(reply.groups).toEqual([['a', 'b'], ['c'], ['d'], ['e'], ['f']])
    expect(reply.calls.map((call) => [call.id, call.name, call.flags?.readOnly, call.flags?.sideEffectScope])).toEqual([
      ['a', 'Read', true, 'none'],
      ['b', 'Read', true, 'none'],
      ['c', 'Edit', false, 'workspace'],
      ['d', 'Sleep', true, 'none'],
      ['e', 'Edit', false, 'workspace'],
      ['f', 'Read', true, 'none'],
    ])
    expect(reply.calls[2]?.flags).toEqual({
      readOnly: false,
      destructive: false,
      concurrentSafe: false,
      sideEffectScope: 'workspace',
      alwaysAsk: false,
      requiresUserInteraction: false,
      dependencies: [],
    })
    expect((await finished(reply.scheduleId)).status).toBe('completed')
  })

  it('R5 starts a new group at the 11th parallel call', async () => {
    const calls = Array.from({ length: 12 }, (_, i) => read(`p${i}`))
    const reply = await accept(fresh('eleven'), calls)
    expect(reply.groups.map((group) => group.length)).toEqual([10, 2])
  })

  it('replies 404 for an unknown session and creates nothing: no session, no schedule, no event', async () => {
    const sessionId = fresh('typo')
    const before = await settledRowCounts(s)
    const reply = await s.json<ErrorReply>('POST', '/schedules', { sessionId, calls: [read('r')] })
    expect(reply.status).toBe(404)
    expect(reply.body.error).toEqual({
      code: 'API_ERR_SESSION_NOT_FOUND',
      message: `Session ${sessionId} not found; create it first with POST /sessions, or let this request create it with "createSession": {"workspace": ...}`,
    })
    expect(await settledRowCounts(s)).toEqual(before)
    expect((await s.json('GET', `/sessions/${sessionId}`)).status).toBe(404)
    expect(await s.runtime.journal.lastSeq(sessionId)).toBe(0)
  })

  it('creates an unknown session with the defaults when asked with createSession: {}', async () => {
    const sessionId = fresh('implicit')
    const reply = await accept(sessionId, [read('r')])
    await finished(reply.scheduleId)
    const view = await s.json<Session>('GET', `/sessions/${sessionId}`)
    expect(view.status).toBe(200)
    expect(view.body).toMatchObject({ id: sessionId, workspace: s.dataDir, permissionMode: 'default', interactive: true, permissionTimeoutMs: null })
    expect(view.body.counts).toEqual({ schedules: 1, calls: 1, pendingPermissions: 0 })
  })

  it("creates the session with createSession's fields, and a retry of the same request is accepted", async () => {
    const sessionId = fresh('created')
    const createSession = { workspace: 'sub/dir', permissionMode: 'plan', interactive: false, permissionTimeoutMs: 5_000, sandbox: { network: true, writablePaths: ['/tmp/x'] } }
    const first = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession, calls: [read('r1')] })
    expect(first.status).toBe(202)
    const view = (await s.json<Session>('GET', `/sessions/${sessionId}`)).body
    expect(view).toMatchObject({ workspace: `${s.dataDir}/sub/dir`, permissionMode: 'plan', interactive: false, permissionTimeoutMs: 5_000, sandbox: createSession.sandbox })
    const retried = await s.json<ScheduleAcceptedReply>('POST', '/schedules', {
      sessionId,
      createSession: { ...createSession, sandbox: { writablePaths: ['/tmp/x'], network: true } },
      calls: [read('r2')],
    })
    expect(retried.status).toBe(202)
    await finished(retried.body.scheduleId)
    expect((await s.json<Session>('GET', `/sessions/${sessionId}`)).body.counts.schedules).toBe(2)
  })

  it('replies 409 API_ERR_SESSION_DIFFERS for createSession with other fields than the session has, and stores nothing', async () => {
    const sessionId = fresh('differs')
    expect((await s.json('POST', '/sessions', { id: sessionId, workspace: '/tmp', permissionMode: 'acceptEdits' })).status).toBe(201)
    const before = await settledRowCounts(s)
    const reply = await s.json<ErrorReply>('POST', '/schedules', { sessionId, createSession: { workspace: '/tmp', permissionMode: 'plan' }, calls: [read('r')] })
    expect(reply.status).toBe(409)
    expect(reply.body.error).toEqual({
      code: 'API_ERR_SESSION_DIFFERS',
      message: `Session ${sessionId} already exists with permissionMode "acceptEdits", not "plan"; leave createSession out, or give it the fields the session has`,
      details: { fields: ['permissionMode'] },
    })
    expect(await settledRowCounts(s)).toEqual(before)
  })

  it('a session created by POST /sessions takes createSession naming the same fields, or none', async () => {
    const sessionId = fresh('same')
    expect((await s.json('POST', '/sessions', { id: sessionId, workspace: 'ws', permissionMode: 'plan' })).status).toBe(201)
    for (const createSession of [{}, { workspace: 'ws' }, { workspace: `${s.dataDir}/ws`, permissionMode: 'plan' }]) {
      const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession, calls: [] })
      expect(reply.status).toBe(202)
    }
  })

  it('two requests racing to create one new session with createSession: both accepted, the session created once', async () => {
    const sessionId = fresh('race-create')
    const replies = await Promise.all(['a', 'b'].map((id) => s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: { permissionMode: 'plan' }, calls: [read(id)] })))
    expect(replies.map((reply) => reply.status)).toEqual([202, 202])
    expect(await s.runtime.store.sessions.counts(sessionId)).toMatchObject({ schedules: 2, calls: 2 })
  })

  it.each<[string, unknown]>([
    ['no sessionId', { calls: [] }],
    ['no calls', { sessionId: 'x' }],
    ['calls that are not an array', { sessionId: 'x', calls: {} }],
    ['a call without an id', { sessionId: 'x', calls: [{ name: 'Read', input: {} }] }],
    ['a call without a name', { sessionId: 'x', calls: [{ id: 'c', input: {} }] }],
    ['an unknown field on the envelope', { sessionId: 'x', calls: [], priority: 1 }],
    ['an unknown field on a call', { sessionId: 'x', calls: [{ id: 'c', name: 'Read', input: {}, retries: 2 }] }],
    ['a session id with spaces', { sessionId: 'a b', calls: [] }],
    ['a dependsOn that is not a list', { sessionId: 'x', calls: [{ id: 'c', name: 'Read', input: {}, dependsOn: 'b' }] }],
    ['open that is not a boolean', { sessionId: 'x', calls: [], open: 'yes' }],
    ['a body that is not JSON', '{"sessionId":'],
    ['a JSON array', [{ sessionId: 'x', calls: [] }]],
  ])('replies 400 in the error format for %s and writes no row', async (_case, body) => {
    const before = await settledRowCounts(s)
    const reply = await s.json<ErrorReply>('POST', '/schedules', body)
    expect(reply.status).toBe(400)
    expect(Object.keys(reply.body)).toEqual(['error'])
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
    expect(reply.body.error.message.length).toBeGreaterThan(0)
    expect(await rowCounts(s)).toEqual(before)
  })

  it('R26 accepts an unknown tool name and gives that call `Tool not found: <name>` (A4) while the others run', async () => {
    const reply = await accept(fresh('unknown-tool'), [read('ok'), { id: 'made-up', name: 'Teleport', input: { to: 'mars' } }])
    expect(reply.calls[1]).toEqual({ id: 'made-up', name: 'Teleport', flags: null })
    const done = await finished(reply.scheduleId)
    expect(done.calls.map((call) => [call.id, call.status, call.modelContent])).toEqual([
      ['ok', 'succeeded', 'contents of ok.txt'],
      ['made-up', 'failed', 'Tool not found: Teleport'],
    ])
    expect(done.calls[1]?.result).toMatchObject({ success: false, isError: true, error: { stage: 'lookup', code: 'EXEC_ERR_TOOL_NOT_FOUND' } })
  })

  it('replies 409 for a call id already used in the session, and writes no row', async () => {
    const sessionId = fresh('reuse')
    await finished((await accept(sessionId, [read('c1')])).scheduleId)
    const before = await rowCounts(s)
    const reply = await s.json<ErrorReply>('POST', '/schedules', { sessionId, calls: [read('c2'), read('c1')] })
    expect(reply.status).toBe(409)
    expect(reply.body.error).toEqual({ code: 'API_ERR_CALL_ID_TAKEN', message: `Call id c1 is already used in session ${sessionId}` })
    expect(await rowCounts(s)).toEqual(before)
    expect((await accept(fresh('other-session'), [read('c1')])).calls[0]?.id).toBe('c1')
  })

  it('two requests racing with one call id for a new session: one 202, one 409, the session created once', async () => {
    const sessionId = fresh('race')
    const replies = await Promise.all([1, 2].map(() => s.json<ErrorReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [read('same')] })))
    expect(replies.map((reply) => reply.status).sort()).toEqual([202, 409])
    expect(replies.find((reply) => reply.status === 409)?.body.error.code).toBe('API_ERR_CALL_ID_TAKEN')
    expect((await s.runtime.store.sessions.counts(sessionId)).calls).toBe(1)
    expect((await s.json('GET', `/sessions/${sessionId}`)).status).toBe(200)
  })

  it('replies 409 for one call id twice in the same body', async () => {
    const sessionId = fresh('twice')
    const reply = await s.json<ErrorReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [read('x'), read('x')] })
    expect(reply.status).toBe(409)
    expect(reply.body.error.code).toBe('API_ERR_CALL_ID_TAKEN')
    expect((await s.json('GET', `/sessions/${sessionId}`)).status).toBe(404)
  })

  it('R6 replies 400 for a dependsOn naming no call of the schedule, and creates nothing', async () => {
    const sessionId = fresh('dep')
    const reply = await s.json<ErrorReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [read('a'), { ...(read('b') as object), dependsOn: ['zz'] }] })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toEqual({ code: 'API_ERR_BAD_DEPENDENCY', message: 'Call b depends on zz, which is not an earlier call of this schedule' })
    expect((await s.json('GET', `/sessions/${sessionId}`)).status).toBe(404)
  })

  it('R6 runs a call after the calls it depends on', async () => {
    const reply = await accept(fresh('dep-ok'), [sleep('slow', 150), { ...(read('after') as object), dependsOn: ['slow'] }])
    const done = await finished(reply.scheduleId)
    const [slow, after] = done.calls
    expect(Date.parse(after?.startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(slow?.completedAt ?? ''))
  })
})

describe('running schedules', () => {
  it('runs the schedules of one session one after another in arrival order while two sessions run concurrently', async () => {
    const [one, two] = [fresh('serial'), fresh('parallel')]
    const stream = await watch((await s.json<Session>('POST', '/sessions', { id: one })).body.id)
    const first = await accept(one, [sleep('s1', 500)])
    const other = await accept(two, [sleep('o1', 500)])
    const second = await accept(one, [sleep('s2', 200)])
    const third = await accept(one, [read('s3')])
    const [a, b, c, o] = await Promise.all([first, second, third, other].map((reply) => finished(reply.scheduleId)))
    const time = (value: string | undefined): number => Date.parse(value ?? '')
    expect(time(b?.calls[0]?.startedAt)).toBeGreaterThanOrEqual(time(a?.calls[0]?.completedAt))
    expect(time(c?.calls[0]?.startedAt)).toBeGreaterThanOrEqual(time(b?.calls[0]?.completedAt))
    expect(time(o?.calls[0]?.startedAt)).toBeLessThan(time(a?.calls[0]?.completedAt))

    await stream.waitFor((frame) => frame.event === 'ScheduleCompleted' && dataOf(frame).scheduleId === third.scheduleId)
    const ofTypes = (...types: string[]): string[] => stream.frames.filter((frame) => types.includes(frame.event)).map((frame) => String(dataOf(frame).callId ?? dataOf(frame).scheduleId))
    expect(ofTypes('ScheduleAccepted')).toEqual([first.scheduleId, second.scheduleId, third.scheduleId])
    expect(ofTypes('ToolCallStarted', 'ScheduleCompleted')).toEqual(['s1', first.scheduleId, 's2', second.scheduleId, 's3', third.scheduleId])
  })
})

describe('GET /schedules/:id', () => {
  it('replies 404 in the error format for an unknown schedule', async () => {
    const reply = await s.json<ErrorReply>('GET', '/schedules/sch_nope')
    expect(reply.status).toBe(404)
    expect(reply.body.error).toEqual({ code: 'API_ERR_SCHEDULE_NOT_FOUND', message: 'Schedule sch_nope not found' })
  })

  it.each(['-1', 'soon', '1e3'])('replies 400 for ?wait=%s', async (wait) => {
    const reply = await s.json<ErrorReply>('GET', `/schedules/sch_nope?wait=${wait}`)
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
  })

  it('R37 shows every call record, with modelContent only once the call is terminal', async () => {
    const reply = await accept(fresh('records'), [sleep('z', 400), read('r')])
    const early = await s.json<ScheduleReply>('GET', `/schedules/${reply.scheduleId}`)
    expect(early.status).toBe(200)
    expect(early.body).toMatchObject({ scheduleId: reply.scheduleId, sessionId: reply.sessionId, turnId: reply.turnId, groups: [['z', 'r']] })
    expect(['queued', 'running']).toContain(early.body.status)
    // The Read beside the sleep may already be done: then, and only then, it has its modelContent.
    expect(['pending', 'running']).toContain(early.body.calls[0]?.status)
    for (const call of early.body.calls) {
      const terminal = call.status === 'succeeded'
      expect(call.modelContent !== undefined).toBe(terminal)
      expect(call.result !== undefined).toBe(terminal)
    }
    const done = await finished(reply.scheduleId)
    expect(done.status).toBe('completed')
    expect(done.calls.map((call) => [call.id, call.name, call.status, call.modelContent])).toEqual([
      ['z', 'Sleep', 'succeeded', 'slept 400'],
      ['r', 'Read', 'succeeded', 'contents of r.txt'],
    ])
    const record = done.calls[1]
    expect(record?.input).toEqual({ file_path: 'r.txt' })
    // Resolving changed nothing: the reply says so instead of repeating the input.
    expect(record?.resolvedInput).toEqual({})
    expect(record?.flags?.readOnly).toBe(true)
    // The model content is the record's; the result repeats neither it nor a Read's output equal to it.
    expect(record?.result).not.toHaveProperty('modelContent')
    expect(record?.result).not.toHaveProperty('output')
    expect(record?.result?.outputIsModelContent).toBe(true)
    expect(record?.result?.serialization).toEqual({ truncated: false, originalBytes: 17, actualBytes: 17, strategy: 'inline' })
    expect(Date.parse(record?.completedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(record?.startedAt ?? ''))
  })

  it('?wait=N replies as soon as the schedule ends, well before N seconds', async () => {
    const reply = await accept(fresh('wait'), [sleep('w', 300)])
    const started = Date.now()
    const held = await s.json<ScheduleReply>('GET', `/schedules/${reply.scheduleId}?wait=8`)
    const elapsed = Date.now() - started
    expect(held.body.status).toBe('completed')
    expect(held.body.calls[0]?.modelContent).toBe('slept 300')
    expect(elapsed).toBeGreaterThanOrEqual(200)
    expect(elapsed).toBeLessThan(4_000)
  })

  it('?wait=N gives up after N seconds with the schedule as it stands', async () => {
    const sessionId = fresh('wait-timeout')
    const reply = await accept(sessionId, [edit('asks')])
    const started = Date.now()
    const held = await s.json<ScheduleReply>('GET', `/schedules/${reply.scheduleId}?wait=0.3`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(held.body.status).toBe('running')
    expect(held.body.calls[0]?.status).toBe('awaiting_permission')
    await s.json('POST', `/sessions/${sessionId}/abort`)
  })
})
