/**
 * PostgreSQL stops while a server stores in it (killed as a crash would kill it) and comes
 * back: meanwhile the server answers 503 API_ERR_STORAGE_UNAVAILABLE, on /healthz too, and
 * never crashes; afterwards it reconnects by itself, keeps every row committed before, and
 * takes new work. Work it had accepted (202) before or between the failures is not stranded:
 * every such schedule ends, in the order it was posted, without a server restart, and none
 * ends `completed` with a call that never ended, after a restart of the server either.
 * A server of its own, on a PostgreSQL server of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallRecord, ErrorReply, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js'

let postgres: PrivatePostgres
let server: TestServer
let url: string

beforeAll(async () => {
  postgres = await startPrivatePostgres()
  url = await postgres.createDatabase('outage')
  server = await startTestServer({ databaseUrl: url })
}, 60_000)

afterAll(async () => {
  await server?.close()
  await postgres?.stop()
})

async function finishedRead(sessionId: string, id: string): Promise<ScheduleReply> {
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id, name: 'Read', input: { file_path: 'missing.txt' } }] })
  expect(accepted.status).toBe(202)
  const done = await server.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
  expect(done.body.status).toBe('completed')
  return done.body
}

describe('PostgreSQL going away and coming back', () => {
  it('answers 503 API_ERR_STORAGE_UNAVAILABLE while it is gone, then reconnects and loses nothing', async () => {
    const created = await server.json<Session>('POST', '/sessions', {})
    expect(created.status).toBe(201)
    const sessionId = created.body.id
    const before = await finishedRead(sessionId, 'r1')

    await postgres.halt()
    const health = await server.json<ErrorReply>('GET', '/healthz')
    expect(health.status).toBe(503)
    expect(health.body.error.code).toBe('API_ERR_STORAGE_UNAVAILABLE')
    for (const [method, route, body] of [
      ['POST', '/sessions', {}],
      ['GET', `/sessions/${sessionId}`, undefined],
      ['POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: 'r2', name: 'Read', input: { file_path: 'x' } }] }],
    ] as const) {
      const reply = await server.json<ErrorReply>(method, route, body)
      expect({ route, status: reply.status, code: reply.body.error.code }).toEqual({ route, status: 503, code: 'API_ERR_STORAGE_UNAVAILABLE' })
    }

    await postgres.resume()
    expect((await server.json('GET', '/healthz')).status).toBe(200)
    const again = await server.json<ScheduleReply>('GET', `/schedules/${before.scheduleId}`)
    expect(again.body).toEqual(before)
    const after = await finishedRead(sessionId, 'r3')
    expect(after.calls.map((call) => call.id)).toEqual(['r3'])
    const history = await server.json<unknown>('GET', `/sessions/${sessionId}/history`)
    expect(history.status).toBe(200)
    const text = JSON.stringify(history.body)
    expect(text).toContain('"r1"')
    expect(text).toContain('"r3"')
    expect(text).not.toContain('"r2"')
  }, 60_000)
})

const FINAL_SCHEDULE = new Set(['completed', 'stopped', 'cancelled'])
const UNFINISHED_CALL = new Set<CallRecord['status']>(['pending', 'awaiting_permission', 'running'])
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function newSession(): Promise<string> {
  const created = await server.json<Session>('POST', '/sessions', { permissionMode: 'bypassPermissions' })
  expect(created.status).toBe(201)
  return created.body.id
}

/**
 * One client posting single-call schedules one after another, as fast as they are answered:
 * once `before` are accepted, `outage` begins; a 503 meanwhile is posted again until `count`
 * are accepted. Gives the accepted schedules' ids in posting order.
 */
async function postThrough(sessionId: string, count: number, before: number, outage: () => Promise<void>): Promise<string[]> {
  const accepted: string[] = []
  let outageDone: Promise<void> | undefined
  while (accepted.length < count) {
    if (accepted.length === before) outageDone ??= outage()
    const call = { id: `c${accepted.length}`, name: 'Sleep', input: { ms: 40 } }
    const reply = await server.json<ScheduleAcceptedReply & ErrorReply>('POST', '/schedules', { sessionId, calls: [call] })
    if (reply.status === 202) accepted.push(reply.body.scheduleId)
    else {
      expect({ status: reply.status, code: reply.body.error.code }).toEqual({ status: 503, code: 'API_ERR_STORAGE_UNAVAILABLE' })
      await pause(50)
    }
  }
  await outageDone
  return accepted
}

/** Each schedule as it is once it ended, or after `seconds` in all. */
async function endedSchedules(ids: readonly string[], seconds: number): Promise<ScheduleReply[]> {
  const deadline = Date.now() + seconds * 1000
  const ended: ScheduleReply[] = []
  for (const id of ids) {
    const wait = Math.max(0, Math.floor((deadline - Date.now()) / 1000))
    const reply = await server.json<ScheduleReply>('GET', `/schedules/${id}?wait=${wait}`)
    expect(reply.status).toBe(200)
    ended.push(reply.body)
  }
  return ended
}

/**
 * Every schedule ended and none holds a call that did not; the calls ran one after another in
 * posting order, and each ended as `ended` allows (succeeded: none failed for the outage).
 */
function expectEndedInOrder(schedules: readonly ScheduleReply[], ended: readonly CallRecord['status'][] = ['succeeded']): void {
  const unfinished = schedules.filter((schedule) => !FINAL_SCHEDULE.has(schedule.status) || schedule.calls.some((call) => UNFINISHED_CALL.has(call.status)))
  expect(
    unfinished.map((schedule) => ({ id: schedule.scheduleId, status: schedule.status, calls: schedule.calls.map((call) => call.status) })),
    `${unfinished.length} of ${schedules.length} schedules stranded`,
  ).toEqual([])
  const calls = schedules.map((schedule) => schedule.calls[0] as CallRecord)
  expect(calls.filter((call) => !ended.includes(call.status)).map((call) => ({ id: call.id, status: call.status, content: call.modelContent }))).toEqual([])
  for (const [index, call] of calls.entries()) {
    const previous = calls[index - 1]
    if (previous === undefined || call.startedAt === undefined) continue
    expect(call.startedAt >= (previous.completedAt ?? ''), `${call.id} started before ${previous.id} ended`).toBe(true)
  }
}

describe('accepted work through a PostgreSQL restart or outage', () => {
  for (const mode of ['fast', 'immediate'] as const) {
    it(`pg_ctl restart -m ${mode} during a stream of single-call schedules strands none of them`, async () => {
      const sessionId = await newSession()
      const ids = await postThrough(sessionId, 20, 8, () => postgres.restart(mode))
      expectEndedInOrder(await endedSchedules(ids, 15))
    }, 40_000)

    it(`a longer outage (stop -m ${mode}, start 3 s later) strands none of them, without a server restart`, async () => {
      const sessionId = await newSession()
      const ids = await postThrough(sessionId, 20, 8, async () => {
        await postgres.halt(mode)
        await pause(3_000)
        await postgres.resume()
      })
      expectEndedInOrder(await endedSchedules(ids, 15))
    }, 40_000)
  }

  it('a server stopped while PostgreSQL is away recovers every schedule it had accepted, none completed with a call that never ended', async () => {
    const sessionId = await newSession()
    const ids = await postThrough(sessionId, 6, 6, async () => {})
    await postgres.halt('immediate')
    await pause(500)
    // A grace longer than the test: running calls cannot be recorded meanwhile, so the stop does not wait for them.
    await server.close({ graceMs: 60_000 })
    await postgres.resume()
    server = await startTestServer({ databaseUrl: url, dataDir: server.dataDir })
    // A call running when the server stopped, its result not yet written, is `interrupted`: the rest ran.
    expectEndedInOrder(await endedSchedules(ids, 15), ['succeeded', 'interrupted'])
  }, 40_000)
})
