/**
 * The backlog of schedules waiting to start is bounded per session and in all: over a bound
 * POST /schedules is a 429 with Retry-After and API_ERR_TOO_MANY_SCHEDULES, and nothing of
 * the refused schedule is stored. A schedule frees its place when it starts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { settledRowCounts, startTestServer, type TestServer } from '../support/server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

interface Posted {
  readonly status: number
  readonly retryAfter: string | null
  readonly body: ScheduleAcceptedReply & { error?: { code: string; message: string; details?: Record<string, unknown> } }
}

async function post(s: TestServer, sessionId: string, id: string, ms = 0): Promise<Posted> {
  const response = await fetch(`${s.url}/schedules`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId, createSession: {}, calls: [{ id, name: 'Sleep', input: { ms } }] }),
  })
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Posted['body'] }
}

async function finished(s: TestServer, scheduleId: string): Promise<ScheduleReply> {
  const reply = await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)
  return reply.body
}

describe('a session with too many schedules waiting to start', () => {
  it('is refused the next one with 429, Retry-After and a code of its own, storing nothing, until one starts', async () => {
    server = await startTestServer({ env: { TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION: '2' } })
    const s = server
    // The first one starts and holds the session; the next two wait behind it.
    const running = await post(s, 'busy', 'run-1', 60_000)
    expect(running.status).toBe(202)
    // A round trip: by its end the schedule has started.
    await s.json('GET', `/schedules/${running.body.scheduleId}?wait=0`)
    const waiting = [await post(s, 'busy', 'wait-1'), await post(s, 'busy', 'wait-2')]
    expect(waiting.map((reply) => reply.status)).toEqual([202, 202])
    const before = await settledRowCounts(s)

    const refused = await post(s, 'busy', 'wait-3')
    expect(refused.status).toBe(429)
    expect(refused.retryAfter).toBe('1')
    expect(refused.body.error?.code).toBe('API_ERR_TOO_MANY_SCHEDULES')
    expect(refused.body.error?.message).toContain('session busy')
    expect(refused.body.error?.message).toContain('TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION=2')
    expect(refused.body.error?.details).toMatchObject({ sessionId: 'busy', bound: 2, scope: 'session' })
    expect(await settledRowCounts(s)).toEqual(before)
    // Another session is not held back by this one's backlog.
    expect((await post(s, 'other', 'other-1')).status).toBe(202)

    // Once the running one ends, the next starts and frees a place: the refused id is accepted.
    await s.json('POST', '/sessions/busy/abort')
    await finished(s, running.body.scheduleId)
    for (const reply of waiting) await finished(s, reply.body.scheduleId)
    const retried = await post(s, 'busy', 'wait-3')
    expect(retried.status).toBe(202)
    expect((await finished(s, retried.body.scheduleId)).status).toBe('completed')
  })
})

describe('a server with too many schedules waiting to start in all', () => {
  it('refuses a schedule of any session with 429 naming the server-wide bound', async () => {
    server = await startTestServer({ env: { TOOLEXEC_MAX_QUEUED_SCHEDULES: '3', TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION: '100' } })
    const s = server
    // Each session's first schedule starts; the second of each waits.
    const runs: Posted[] = []
    for (const session of ['a', 'b', 'c']) {
      runs.push(await post(s, session, `run-${session}`, 60_000))
      await s.json('GET', `/schedules/${runs.at(-1)?.body.scheduleId}?wait=0`)
    }
    for (const session of ['a', 'b', 'c']) expect((await post(s, session, `wait-${session}`)).status).toBe(202)
    const before = await settledRowCounts(s)

    const refused = await post(s, 'd', 'wait-d')
    expect(refused.status).toBe(429)
    expect(refused.retryAfter).toBe('1')
    expect(refused.body.error?.message).toContain('TOOLEXEC_MAX_QUEUED_SCHEDULES=3')
    expect(refused.body.error?.message).toContain('session d')
    expect(refused.body.error?.details).toMatchObject({ sessionId: 'd', bound: 3, scope: 'server' })
    expect(await settledRowCounts(s)).toEqual(before)
    expect((await s.json('GET', '/sessions/d')).status).toBe(404)

    await s.json('POST', '/sessions/a/abort')
    await finished(s, runs[0]?.body.scheduleId ?? '')
    await expect.poll(async () => (await post(s, 'd', 'wait-d')).status).toBe(202)
    for (const session of ['b', 'c']) await s.json('POST', `/sessions/${session}/abort`)
  })

  it('counts a schedule refused for another reason nowhere: its place is given back', async () => {
    server = await startTestServer({ env: { TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION: '1' } })
    const s = server
    const running = await post(s, 'taken', 'run-1', 60_000)
    // A round trip: by its end the schedule has started.
    await s.json('GET', `/schedules/${running.body.scheduleId}?wait=0`)
    // The call id is taken: refused inside the commit, after the backlog admitted it.
    expect((await post(s, 'taken', 'run-1')).status).toBe(409)
    expect((await post(s, 'taken', 'wait-1')).status).toBe(202)
    expect((await post(s, 'taken', 'wait-2')).status).toBe(429)
    await s.json('POST', '/sessions/taken/abort')
  })
})
