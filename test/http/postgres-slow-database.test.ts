/**
 * Issue 25: the event loop never waits for PostgreSQL. One session's writes are made slow in
 * the database itself (a trigger sleeps 200 ms for each of its events); while its work is
 * committed, `/healthz` answers, and another session's schedule runs and streams its events,
 * each within 50 ms: neither waits behind the slow session's commits.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSse, type SseFrame } from '../support/sse-client.js'
import { startTestServer, type TestServer } from '../support/server.js'

const SLOW_MS = 200
const WITHIN_MS = 50
const ROUNDS = 5

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
  for (const id of ['slow', 'quick']) expect((await server.json('POST', '/sessions', { id, workspace: server.dataDir })).status).toBe(201)
  await slowDownEventsOf('slow')
})

afterAll(async () => {
  await server.close()
})

/** Every event of the session sleeps SLOW_MS in the database before it is inserted. */
async function slowDownEventsOf(sessionId: string): Promise<void> {
  const client = new pg.Client({ connectionString: server.databaseUrl })
  await client.connect()
  try {
    await client.query(`CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(${SLOW_MS / 1000}); RETURN NEW; END $$`)
    await client.query(`CREATE TRIGGER slow_events BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.session_id = ${client.escapeLiteral(sessionId)}) EXECUTE FUNCTION slow_insert()`)
  } finally {
    await client.end()
  }
}

async function schedule(sessionId: string, callId: string): Promise<string> {
  const posted = await server.json<{ scheduleId: string }>('POST', '/schedules', { sessionId, calls: [{ id: callId, name: 'Sleep', input: { ms: 0 } }] })
  expect(posted.status).toBe(202)
  return posted.body.scheduleId
}

const endOf = (scheduleId: string) => (frame: SseFrame) => frame.event === 'ScheduleCompleted' && frame.data.includes(`"${scheduleId}"`)

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await work()
  return performance.now() - started
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

describe('with one session’s writes slowed down in PostgreSQL', () => {
  it('healthz and another session’s stream answer within 50 ms, and the slow session loses nothing', async () => {
    const slowStream = await openSse(server.url, 'slow')
    const quickStream = await openSse(server.url, 'quick')
    // Enough slow work to outlast the measurements: each call writes several events.
    const slowSchedules: string[] = []
    for (let call = 0; call < 4; call++) slowSchedules.push(await schedule('slow', `slow-${call}`))
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS / 2))

    const healthz: number[] = []
    const quick: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      healthz.push(await timed(async () => expect((await fetch(`${server.url}/healthz`)).status).toBe(200)))
      quick.push(
        await timed(async () => {
          const scheduleId = await schedule('quick', `quick-${round}`)
          await quickStream.waitFor(endOf(scheduleId), 10 * SLOW_MS)
        }),
      )
    }
    // The slow session was still writing all along: its last schedule had not ended.
    expect(slowStream.frames.some(endOf(slowSchedules.at(-1) as string))).toBe(false)
    expect(median(healthz), `healthz: ${healthz.map((ms) => ms.toFixed(1)).join(', ')} ms`).toBeLessThan(WITHIN_MS)
    expect(median(quick), `quick session: ${quick.map((ms) => ms.toFixed(1)).join(', ')} ms`).toBeLessThan(WITHIN_MS)
    expect(Math.max(...healthz, ...quick)).toBeLessThan(SLOW_MS)

    // Nothing of the slow session is lost: every schedule ends, in order, with gapless ids.
    for (const scheduleId of slowSchedules) await slowStream.waitFor(endOf(scheduleId), 60 * SLOW_MS)
    const ids = slowStream.ids()
    expect(ids).toEqual(ids.map((_id, index) => index + 1))
    await slowStream.close()
    await quickStream.close()
  }, 60_000)
})
