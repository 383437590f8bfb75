/**
 * What only the PostgreSQL store promises of a unit of work: it is one round trip, whatever its
 * size, with its values written into its text safely whatever they hold, and the event loop goes
 * on while the database keeps it waiting.
 */
import pg from 'pg'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ToolexecError } from '../../src/contracts/errors.js'
import type { OpenedStore, StoredEvent } from '../../src/contracts/store.js'
import { openPostgresStore } from '../../src/storage/postgres/open-postgres.js'
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js'
import { literal } from '../../src/storage/postgres/sql-literals.js'
import { sessionRecord, STORE_TEST_AT } from '../support/store-records.js'
import { freshDatabaseUrl } from '../support/test-database.js'

const logger = pino({ level: 'silent' })
let url: string
let opened: OpenedStore
let store: PostgresStore

beforeEach(async () => {
  const fresh = await freshDatabaseUrl()
  if (fresh === undefined) throw new Error('this suite runs only in the postgres project')
  url = fresh
  opened = await openPostgresStore(url, { logger })
  store = opened.store as PostgresStore
})

afterEach(() => opened.close())

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The round trips and statements `run` sends. */
async function trafficOf(run: () => Promise<unknown>): Promise<{ roundTrips: number; statements: number }> {
  const before = store.traffic
  await run()
  const after = store.traffic
  return { roundTrips: after.roundTrips - before.roundTrips, statements: after.statements - before.statements }
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => {
      throw new Error('it did not reject')
    },
    (error: unknown) => error,
  )
}

describe('a unit of work on PostgreSQL', () => {
  it('is one round trip, a statement per write but one for all its events, whatever its size; an empty unit and a build that throws send nothing', async () => {
    const unit = (): Promise<unknown> =>
      store.commit((u) => {
        u.sessions.insert(sessionRecord('s', { sandbox: { network: false } }))
        for (let seq = 1; seq <= 20; seq++) u.events.insert({ sessionId: 's', seq, type: 'Note', data: `{"seq":${seq}}` }, STORE_TEST_AT)
      })
    // The session, its sandbox settings, and the twenty events in one INSERT.
    expect(await trafficOf(unit)).toEqual({ roundTrips: 1, statements: 3 })
    expect((await store.events.after('s', 0, 100)).map((event) => event.seq)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1))
    expect(await trafficOf(() => store.commit(() => 'nothing written'))).toEqual({ roundTrips: 0, statements: 0 })
    const thrown = new Error('no')
    const failing = (): Promise<unknown> =>
      rejection(() =>
        store.commit((u) => {
          u.sessions.insert(sessionRecord('t'))
          throw thrown
        }),
      )
    expect(await trafficOf(async () => expect(await failing()).toBe(thrown))).toEqual({ roundTrips: 0, statements: 0 })
    expect(await trafficOf(() => store.sessions.get('t'))).toEqual({ roundTrips: 1, statements: 1 })
    expect(await store.sessions.get('t')).toBeUndefined()
  })

  it('stores every text exactly as given, quotes, backslashes, placeholders and SQL included; negative and large numbers too', async () => {
    const texts = ["it's", "'); DROP TABLE sessions; --", "back\\slash \\' \\\\", '$1 $2 $$ $tag$ x $tag$', "E'\\x00'", '/* open comment', '"quoted" -- dash', 'ünï\u{1F600}\t\r\n']
    await store.commit((u) => {
      texts.forEach((text, i) => u.sessions.insert(sessionRecord(`s${i}`, { workspace: text, permissionTimeoutMs: Number.MAX_SAFE_INTEGER })))
      u.events.insert({ sessionId: 's0', seq: -3, type: texts[1] as string, data: texts[2] as string }, STORE_TEST_AT)
    })
    for (const [i, text] of texts.entries()) expect(await store.sessions.get(`s${i}`)).toMatchObject({ workspace: text, permissionTimeoutMs: Number.MAX_SAFE_INTEGER })
    expect(await store.events.after('s0', -10, 5)).toEqual([{ sessionId: 's0', seq: -3, type: texts[1], data: texts[2] }])
    expect((await store.sessions.ids()).length).toBe(texts.length)
  })

  it('quotes a text as pg.escapeLiteral does, and 4 MB of it without holding the event loop', () => {
    for (const text of ['', 'plain', "it's", "''", '\\', "\\'", "a\\'b'\\\\c", 'ünï\u{1F600}']) expect(literal(text)).toBe(pg.escapeLiteral(text))
    const started = performance.now()
    literal(`'\\${'x'.repeat(4_000_000)}`)
    expect(performance.now() - started).toBeLessThan(100)
  })

  it('refuses a NUL character with API_ERR_VALIDATION and a number that is not finite, sending nothing', async () => {
    const nul = (): Promise<unknown> => rejection(() => store.commit((u) => u.sessions.insert(sessionRecord('n', { workspace: 'a\u0000b' }))))
    expect(await trafficOf(async () => expect(await nul()).toMatchObject({ code: 'API_ERR_VALIDATION', message: expect.stringMatching(/^Text holding a NUL character/) as unknown }))).toEqual({
      roundTrips: 0,
      statements: 0,
    })
    const infinite = (): Promise<unknown> => rejection(() => store.commit((u) => u.sessions.insert(sessionRecord('i', { permissionTimeoutMs: Infinity }))))
    expect(await trafficOf(async () => expect(await infinite()).toBeInstanceOf(TypeError))).toEqual({ roundTrips: 0, statements: 0 })
    expect(await store.sessions.ids()).toEqual([])
  })

  it('keeps the event loop turning while the database makes it wait, and settles once the unit is durable', async () => {
    await store.commit((u) => u.sessions.insert(sessionRecord('w')))
    const blocker = new pg.Client({ connectionString: url })
    await blocker.connect()
    try {
      await blocker.query('BEGIN')
      await blocker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE')
      let settled = false
      const unit = store.commit((u) => u.events.insert({ sessionId: 'w', seq: 1, type: 'Note', data: '{}' }, STORE_TEST_AT)).then(() => (settled = true))
      let ticks = 0
      const ticker = setInterval(() => ticks++, 10)
      await pause(300)
      clearInterval(ticker)
      expect(settled).toBe(false)
      expect(ticks).toBeGreaterThan(10)
      await blocker.query('COMMIT')
      await unit
      const count = await blocker.query<{ count: string }>('SELECT count(*) FROM events')
      expect(count.rows[0]?.count).toBe('1')
    } finally {
      await blocker.end()
    }
  })

  it('answers a failing statement with its mapped error and rolls back the statements before it', async () => {
    await store.commit((u) => u.sessions.insert(sessionRecord('c')))
    const error = await rejection(() =>
      store.commit((u) => {
        u.sessions.setPermissionMode('c', 'plan')
        u.sessions.insert(sessionRecord('c'))
      }),
    )
    expect(error).toMatchObject({ name: 'StoreConflictError' })
    expect(error).not.toBeInstanceOf(ToolexecError)
    expect((await store.sessions.get('c'))?.permissionMode).toBe('default')
  })

  it("fences a background task's writes like every other write of its session: refused once another node holds its lease, nothing written", async () => {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await store.commit((u) => u.sessions.insert(sessionRecord('f')))
      await admin.query("INSERT INTO session_leases (session_id, owner, epoch, expires_at) VALUES ('f', 'me', 1, now() + interval '1 minute')")
      store.fenceWith({ nodeId: 'me', epochOf: (sessionId) => (sessionId === 'f' ? 1 : undefined) })
      const task = { sessionId: 'f', id: 'bash_f', callId: 'c1', command: 'sleep 300', description: 'waits', nodeId: 'me', outputPath: null, startedAt: STORE_TEST_AT }
      await store.commit((u) => u.tasks.insert(task))
      // Another node takes the session over: this one's end of the task, and its mark of a lost one, land nowhere.
      await admin.query("UPDATE session_leases SET owner = 'other', epoch = 2 WHERE session_id = 'f'")
      const end = { status: 'completed', exitCode: 0, outputPath: null, endedAt: STORE_TEST_AT } as const
      expect(await rejection(() => store.commit((u) => u.tasks.end('f', 'bash_f', end)))).toMatchObject({ name: 'LeaseLostError' })
      expect(await rejection(() => store.commit((u) => u.tasks.markLost('f', 'bash_f', STORE_TEST_AT)))).toMatchObject({ name: 'LeaseLostError' })
      expect(await rejection(() => store.commit((u) => u.tasks.insert({ ...task, id: 'bash_g' })))).toMatchObject({ name: 'LeaseLostError' })
      expect(await store.tasks.get('f', 'bash_f')).toMatchObject({ status: 'running', endedAt: null })
      expect(await store.tasks.get('f', 'bash_g')).toBeUndefined()
    } finally {
      await admin.end()
    }
  })
})

describe('reads of events on PostgreSQL', () => {
  it('reads the pages of several sessions asked for in one turn in one round trip, each as it would alone', async () => {
    await store.commit((u) => {
      for (const id of ['a', 'b', 'c']) {
        u.sessions.insert(sessionRecord(id))
        for (let seq = 1; seq <= 6; seq++) u.events.insert({ sessionId: id, seq, type: 'Note', data: `{"${id}":"${'x'.repeat(seq * 10)}"}` }, STORE_TEST_AT)
      }
    })
    const asked = (): Promise<StoredEvent[][]> =>
      Promise.all([store.events.after('a', 0, 100), store.events.after('b', 2, 3), store.events.after('c', 1, 100, 50), store.events.after('missing', 0, 10), store.events.after('a', 6, 10)])
    const alone: StoredEvent[][] = []
    for (const [id, after, limit, maxChars] of [
      ['a', 0, 100],
      ['b', 2, 3],
      ['c', 1, 100, 50],
      ['missing', 0, 10],
      ['a', 6, 10],
    ] as const)
      alone.push(await store.events.after(id, after, limit, maxChars))
    let pages: StoredEvent[][] = []
    expect(await trafficOf(async () => (pages = await asked()))).toEqual({ roundTrips: 1, statements: 1 })
    expect(pages).toEqual(alone)
    expect(pages.map((page) => page.map((event) => event.seq))).toEqual([[1, 2, 3, 4, 5, 6], [3, 4, 5], [2, 3], [], []])
  })
})
