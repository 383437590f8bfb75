/**
 * PostgreSQL stops while a server stores in it (killed as a crash would kill it) and comes
 * back: meanwhile the server answers 503 API_ERR_STORAGE_UNAVAILABLE, on /healthz too, and
 * never crashes; afterwards it reconnects by itself, keeps every row committed before, and
 * takes new work. A server of its own, on a PostgreSQL server of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js'

let postgres: PrivatePostgres
let server: TestServer

beforeAll(async () => {
  postgres = await startPrivatePostgres()
  const url = await postgres.createDatabase('outage')
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
