import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ErrorReply, ScheduleAcceptedReply, SessionList } from '../../src/contracts/api.js'
import { sleepTool } from '../support/tools.js'
import { startTestServer, type TestServer } from '../support/server.js'

let server: TestServer

beforeEach(async () => {
  server = await startTestServer({ tools: [sleepTool()] })
})

afterEach(async () => {
  await server.close()
})

async function createSessions(count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const id = `s${String(i).padStart(2, '0')}`
    expect((await server.json('POST', '/sessions', { id })).status).toBe(201)
    ids.push(id)
  }
  return ids
}

describe('GET /sessions', () => {
  it('lists sessions newest first, each as GET /sessions/:id shows it', async () => {
    const ids = await createSessions(3)
    const reply = await server.json<SessionList>('GET', '/sessions')
    expect(reply.status).toBe(200)
    expect(reply.body.sessions.map((session) => session.id)).toEqual([...ids].reverse())
    expect(reply.body.next).toBeUndefined()
    expect(reply.body.sessions[0]).toEqual((await server.json('GET', `/sessions/${ids[2]}`)).body)
  })

  it('pages with limit and before, every session once, in order', async () => {
    const ids = await createSessions(7)
    const seen: string[] = []
    let before: string | undefined
    for (let page = 0; page < 10; page++) {
      const query = before === undefined ? '?limit=3' : `?limit=3&before=${before}`
      const reply = await server.json<SessionList>('GET', `/sessions${query}`)
      expect(reply.body.sessions.length).toBeLessThanOrEqual(3)
      seen.push(...reply.body.sessions.map((session) => session.id))
      before = reply.body.next
      if (before === undefined) break
    }
    expect(seen).toEqual([...ids].reverse())
  })

  it('shows a running session as running', async () => {
    await createSessions(1)
    const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's00', createSession: {}, calls: [{ id: 'c1', name: 'Sleep', input: { ms: 5_000 } }] })
    await expect.poll(async () => (await server.json<SessionList>('GET', '/sessions')).body.sessions[0]?.status).toBe('running')
    await server.json('POST', '/sessions/s00/abort')
    await server.json('GET', `/schedules/${accepted.body.scheduleId}?wait=5`)
  })

  it.each([
    ['a limit of 0', '?limit=0', 400],
    ['a limit over 500', '?limit=501', 400],
    ['a limit that is no number', '?limit=ten', 400],
    ['an unknown parameter', '?page=2', 400],
    ['a before that names no session', '?before=nobody', 404],
  ])('answers %s (%s) with an error reply', async (_case, query, status) => {
    await createSessions(1)
    const reply = await server.json<ErrorReply>('GET', `/sessions${query}`)
    expect([reply.status, typeof reply.body.error.code, typeof reply.body.error.message]).toEqual([status, 'string', 'string'])
  })
})
