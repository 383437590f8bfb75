import { describe, expect, it } from 'vitest'
import type { ErrorReply, HistoryEntry, PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply, Session, ToolInfo } from '../../src/contracts/api.js'
import { useHttpSuite } from '../support/http-suite.js'
import { rowCounts } from '../support/row-counts.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { probeSandbox } from '../../src/tools/bash/sandbox-probe.js'
import { dataOf } from '../support/sse-client.js'
import { coldCopyOf } from '../support/cold-copy.js'

// One server for the file (starting one costs about a second); every test uses its own sessions.
let s: TestServer
const suite = useHttpSuite((server) => {
  s = server
})
const watch = suite.watch

async function schedule(s: TestServer, sessionId: string, calls: unknown[]): Promise<ScheduleAcceptedReply> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls })
  expect(reply.status).toBe(202)
  return reply.body
}

async function finished(s: TestServer, scheduleId: string): Promise<ScheduleReply> {
  const reply = await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)
  expect(['completed', 'stopped', 'cancelled']).toContain(reply.body.status)
  return reply.body
}

async function session(s: TestServer, id: string): Promise<Session> {
  const reply = await s.json<Session>('GET', `/sessions/${id}`)
  expect(reply.status).toBe(200)
  return reply.body
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (ok(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const sleep = (id: string, ms: number): unknown => ({ id, name: 'Sleep', input: { ms } })
const edit = (id: string, file = 'a.txt'): unknown => ({ id, name: 'Edit', input: { file_path: file } })
const read = (id: string, file = 'a.txt'): unknown => ({ id, name: 'Read', input: { file_path: file } })

describe('POST /sessions', () => {
  it('creates a session with defaults and replies 201 with it', async () => {
    const reply = await s.json<Session>('POST', '/sessions', {})
    expect(reply.status).toBe(201)
    expect(reply.body.id).toMatch(/^ses_[0-9a-f-]{36}$/)
    expect(reply.body).toMatchObject({
      workspace: s.dataDir,
      permissionMode: 'default',
      interactive: true,
      permissionTimeoutMs: null,
      status: 'idle',
      counts: { schedules: 0, calls: 0, pendingPermissions: 0 },
      lastEventId: 0,
    })
    expect((await session(s, reply.body.id)).createdAt).toBe(reply.body.createdAt)
  })

  it('keeps every field it was given', async () => {
    const body = { id: 'ses-given', workspace: 'sub/dir', permissionMode: 'bypassPermissions', interactive: false, permissionTimeoutMs: 1234 }
    const reply = await s.json<Session>('POST', '/sessions', body)
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ ...body, workspace: `${s.dataDir}/sub/dir` })
  })

  it.each([
    ['an unknown field', { id: 'x', colour: 'red' }],
    ['an unknown permission mode', { permissionMode: 'yolo' }],
    ['an id with a slash', { id: 'a/b' }],
    ['an empty id', { id: '' }],
    ['a string for interactive', { interactive: 'yes' }],
    ['a zero permission timeout', { permissionTimeoutMs: 0 }],
    ['a workspace with a NUL byte', { workspace: '/tmp/a\u0000b' }],
    ['an array body', []],
    ['a body that is not JSON', '{"id":'],
  ])('replies 400 in the error format for %s, and stores nothing', async (_case, body) => {
    const before = await rowCounts(s)
    const reply = await s.json<ErrorReply>('POST', '/sessions', body)
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
    expect(reply.body.error.message.length).toBeGreaterThan(0)
    expect(await rowCounts(s)).toEqual(before)
  })

  it('replies 409 for an id that exists and leaves the first session as it was', async () => {
    await s.json('POST', '/sessions', { id: 'dup', permissionMode: 'plan' })
    const reply = await s.json<ErrorReply>('POST', '/sessions', { id: 'dup', permissionMode: 'default' })
    expect(reply.status).toBe(409)
    expect(reply.body.error).toEqual({ code: 'API_ERR_SESSION_EXISTS', message: 'Session dup already exists' })
    expect((await session(s, 'dup')).permissionMode).toBe('plan')
  })
})

describe('GET /sessions/:id', () => {
  it('replies 404 in the error format for an unknown session', async () => {
    const reply = await s.json<ErrorReply>('GET', '/sessions/nobody')
    expect(reply.status).toBe(404)
    expect(reply.body.error).toEqual({ code: 'API_ERR_SESSION_NOT_FOUND', message: 'Session nobody not found' })
  })

  it('shows running while a call runs, with its counts and the last event id of the stream', async () => {
    const stream = await watch(s, (await s.json<Session>('POST', '/sessions', { id: 'busy' })).body.id)
    await schedule(s, 'busy', [sleep('z1', 600), sleep('z2', 600)])
    await stream.waitFor((frame) => frame.event === 'ToolCallStarted' && dataOf(frame).callId === 'z2')
    const view = await session(s, 'busy')
    expect(view.status).toBe('running')
    expect(view.counts).toEqual({ schedules: 1, calls: 2, pendingPermissions: 0 })
    expect(view.lastEventId).toBeGreaterThanOrEqual(Number((await stream.waitForType('ToolCallStarted')).id))
    const done = await stream.waitForType('ScheduleCompleted')
    const idle = await eventually(
      () => session(s, 'busy'),
      (v) => v.status === 'idle',
    )
    expect(idle.status).toBe('idle')
    expect(idle.lastEventId).toBe(Number(done.id))
  })

  it('shows awaiting_permission while an approval is pending, and idle once it is answered and run', async () => {
    const stream = await watch(s, (await s.json<Session>('POST', '/sessions', { id: 'asks' })).body.id)
    const accepted = await schedule(s, 'asks', [edit('e1')])
    const requested = dataOf<{ permissionId: string }>(await stream.waitForType('PermissionRequested'))
    const waiting = await session(s, 'asks')
    expect(waiting.status).toBe('awaiting_permission')
    expect(waiting.counts).toEqual({ schedules: 1, calls: 1, pendingPermissions: 1 })
    expect((await s.json('POST', `/permissions/${requested.permissionId}`, { decision: 'allow' })).status).toBe(200)
    await finished(s, accepted.scheduleId)
    const idle = await eventually(
      () => session(s, 'asks'),
      (v) => v.status === 'idle',
    )
    expect(idle).toMatchObject({ status: 'idle', counts: { schedules: 1, calls: 1, pendingPermissions: 0 } })
  })
})

describe('POST /sessions/:id/abort', () => {
  it('replies 404 for an unknown session', async () => {
    const reply = await s.json<ErrorReply>('POST', '/sessions/nobody/abort')
    expect(reply.status).toBe(404)
    expect(reply.body.error.code).toBe('API_ERR_SESSION_NOT_FOUND')
  })

  it('R23 ends running calls cancelled at once, cancels the queued schedule, and the next schedule runs', async () => {
    await s.json('POST', '/sessions', { id: 'ab' })
    const stream = await watch(s, 'ab')
    const running = await schedule(s, 'ab', [sleep('long1', 10_000), sleep('long2', 10_000)])
    const queued = await schedule(s, 'ab', [read('later')])
    await stream.waitFor((frame) => frame.event === 'ToolCallStarted' && dataOf(frame).callId === 'long2')
    const started = Date.now()
    const reply = await s.json('POST', '/sessions/ab/abort')
    expect(reply).toEqual({ status: 200, body: { sessionId: 'ab', aborted: true } })
    const first = await finished(s, running.scheduleId)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(first.status).toBe('cancelled')
    expect(first.calls.map((call) => [call.id, call.status, call.modelContent])).toEqual([
      ['long1', 'cancelled', 'Tool execution cancelled'],
      ['long2', 'cancelled', 'Tool execution cancelled'],
    ])
    const second = await finished(s, queued.scheduleId)
    expect(second.status).toBe('cancelled')
    expect(second.calls.map((call) => call.status)).toEqual(['cancelled'])
    const after = await finished(s, (await schedule(s, 'ab', [read('fresh')])).scheduleId)
    expect(after.status).toBe('completed')
    expect(after.calls[0]?.modelContent).toBe('contents of a.txt')
  })

  it('R23 resolves a pending approval as decidedBy abort and the call ends cancelled', async () => {
    await s.json('POST', '/sessions', { id: 'abp' })
    const stream = await watch(s, 'abp')
    const accepted = await schedule(s, 'abp', [edit('e1')])
    const requested = dataOf<{ permissionId: string }>(await stream.waitForType('PermissionRequested'))
    await s.json('POST', '/sessions/abp/abort')
    const resolved = dataOf(await stream.waitForType('PermissionResolved'))
    expect(resolved).toMatchObject({ permissionId: requested.permissionId, callId: 'e1', decision: 'deny', decidedBy: 'abort' })
    const record = await finished(s, accepted.scheduleId)
    expect(record.status).toBe('cancelled')
    expect(record.calls[0]?.status).toBe('cancelled')
    const pending = await s.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?sessionId=abp&status=pending')
    expect(pending.body.requests).toEqual([])
    const late = await s.json<ErrorReply>('POST', `/permissions/${requested.permissionId}`, { decision: 'allow' })
    expect(late.status).toBe(409)
    expect(late.body.error.code).toBe('API_ERR_PERMISSION_CLOSED')
    expect(late.body.error.message).toBe(`Permission request ${requested.permissionId} is closed (its call was aborted): nobody decides it any more`)
  })
})

describe('GET /sessions/:id/history', () => {
  it('replies 404 for an unknown session', async () => {
    expect((await s.json<ErrorReply>('GET', '/sessions/nobody/history')).status).toBe(404)
  })

  it('R39 lists every stored record in order with the exact modelContent the model received, also after a cold restart', async () => {
    await s.json('POST', '/sessions', { id: 'hist' })
    const stream = await watch(s, 'hist')
    const one = await schedule(s, 'hist', [read('r1', 'one.txt'), { id: 'ghost', name: 'NoSuchTool', input: {} }, edit('e1')])
    const permission = dataOf<{ permissionId: string }>(await stream.waitForType('PermissionRequested'))
    await s.json('POST', `/permissions/${permission.permissionId}`, { decision: 'deny', message: 'Not that file, use two.txt' })
    await finished(s, one.scheduleId)
    const two = await schedule(s, 'hist', [read('r2', 'two.txt'), { id: 'bad', name: 'Read', input: { path: 1 } }])
    await finished(s, two.scheduleId)
    // The held reply and the stream are two connections: wait for the stream to catch up.
    await stream.waitFor((frame) => frame.event === 'ScheduleCompleted' && dataOf<{ scheduleId: string }>(frame).scheduleId === two.scheduleId)

    const sent = stream.frames.filter((frame) => frame.event === 'ToolCallResult').map((frame) => dataOf<{ result: { callId: string; modelContent: unknown } }>(frame).result)
    const history = await s.json<{ sessionId: string; entries: HistoryEntry[] }>('GET', '/sessions/hist/history')
    expect(history.status).toBe(200)
    expect(history.body.entries.map((entry) => entry.callId)).toEqual(['r1', 'ghost', 'e1', 'r2', 'bad'])
    const byId = new Map(sent.map((result) => [result.callId, result.modelContent]))
    for (const entry of history.body.entries) expect(entry.modelContent).toEqual(byId.get(entry.callId))
    expect(history.body.entries.map((entry) => [entry.status, entry.isError])).toEqual([
      ['succeeded', false],
      ['failed', true],
      ['denied', true],
      ['succeeded', false],
      ['failed', true],
    ])
    expect(history.body.entries.slice(0, 3).map((entry) => entry.modelContent)).toEqual(['contents of one.txt', 'Tool not found: NoSuchTool', 'Not that file, use two.txt'])
    expect(history.body.entries[4]?.turnId).toBe(two.turnId)

    const copy = await startTestServer({ dataDir: await coldCopyOf(s) })
    try {
      const cold = await copy.json<{ entries: HistoryEntry[] }>('GET', '/sessions/hist/history')
      expect(cold.body.entries).toEqual(history.body.entries)
    } finally {
      await copy.close()
    }
  })
})

describe('service routes', () => {
  it('GET /tools lists every tool with description, input schema, flags, timeout and result budget', async () => {
    const reply = await s.json<{ tools: ToolInfo[] }>('GET', '/tools')
    expect(reply.status).toBe(200)
    expect(reply.body.tools.map((tool) => tool.name)).toEqual(['Read', 'Edit', 'Sleep'])
    const readInfo = reply.body.tools[0] as ToolInfo
    expect(readInfo).toMatchObject({
      description: 'Returns the path it was given',
      flags: { readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none' },
      resultBudget: { strategy: 'truncate', maxModelBytes: 100000, maxInlineBytes: 100000, previewDirection: 'head' },
    })
    expect(readInfo.inputSchema).toMatchObject({ type: 'object', required: ['file_path'] })
    expect(reply.body.tools[1]?.flags).toMatchObject({ readOnly: false, sideEffectScope: 'workspace' })
  })

  it("GET /healthz replies ok, and says whether Bash commands are confined, and this server's name and sessions", async () => {
    const sandbox = probeSandbox('auto')
    await s.json('POST', '/sessions', { id: 'healthz-held' })
    expect(await s.json('GET', '/healthz')).toEqual({
      status: 200,
      body: {
        status: 'ok',
        sandbox: { confined: sandbox.confined, mode: 'auto', ...(sandbox.reason === undefined ? {} : { reason: sandbox.reason }) },
        // On PostgreSQL the server holds the lease of each session it runs; on SQLite it runs every one without leases.
        node: { id: s.runtime.ownership.nodeId, sessions: s.runtime.ownership.solo ? 0 : (expect.any(Number) as unknown) },
      },
    })
    if (!s.runtime.ownership.solo) expect(s.runtime.ownership.epochOf('healthz-held')).toBeGreaterThan(0)
  })

  it('GET /openapi.json is an OpenAPI 3.1 document with every route', async () => {
    const reply = await s.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json')
    expect(reply.status).toBe(200)
    expect(reply.body.openapi).toBe('3.1.0')
    const routes = Object.entries(reply.body.paths).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`))
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /sessions',
        'GET /sessions/{id}',
        'POST /sessions/{id}/abort',
        'GET /sessions/{id}/history',
        'GET /sessions/{id}/events',
        'POST /schedules',
        'GET /schedules/{id}',
        'POST /schedules/{id}/calls',
        'POST /schedules/{id}/close',
        'POST /permissions/{id}',
        'GET /permissions',
        'GET /artifacts/{sessionId}/{artifactId}',
        'GET /tools',
        'GET /healthz',
      ]),
    )
  })

  it('GET /docs serves a browsable HTML reference', async () => {
    const response = await fetch(`${s.url}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await response.text()).toMatch(/<html/i)
  })

  it.each([
    ['GET', '/nowhere'],
    ['DELETE', '/sessions'],
    ['PUT', '/schedules/x'],
  ])('an unknown route %s %s is a 404 in the error format', async (method, route) => {
    const reply = await s.json<ErrorReply>(method, route)
    expect(reply.status).toBe(404)
    expect(reply.body.error).toEqual({ code: 'API_ERR_NOT_FOUND', message: `Route ${method} ${route} not found` })
  })
})
