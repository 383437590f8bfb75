/**
 * The PostgreSQL store's group commit (src/storage/postgres/group-commit.ts): units committed
 * while others are in flight share one transaction, in which each unit's outcome is as if it
 * had been committed alone, and a unit the database refuses fails alone.
 */
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { StoreConflictError, type OpenedStore, type Store } from '../../src/contracts/store.js'
import pg from 'pg'
import { GROUPS_IN_FLIGHT, STALLED_MS } from '../../src/storage/postgres/group-commit.js'
import { openPostgresStore } from '../../src/storage/postgres/open-postgres.js'
import { sessionRecord, STORE_TEST_AT, succeededResult, toolFlags } from '../support/store-records.js'
import { freshDatabaseUrl } from '../support/test-database.js'

const opened: OpenedStore[] = []

let url = ''

async function openStore(): Promise<Store> {
  const fresh = await freshDatabaseUrl()
  if (fresh === undefined) throw new Error('this suite runs only in the postgres project')
  url = fresh
  const store = await openPostgresStore(url, { logger: pino({ level: 'silent' }) })
  opened.push(store)
  return store.store
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
})

const note = (seq: number) => ({ sessionId: 's', seq, type: 'Note', data: JSON.stringify({ seq }) })

describe('the PostgreSQL store commits units called together in shared transactions', () => {
  it('sends 40 units called at once in a few round trips, and stores every one', async () => {
    const store = await openStore()
    await store.commit((u) => u.sessions.insert(sessionRecord('s')))
    const before = (store as unknown as { traffic: { roundTrips: number } }).traffic.roundTrips
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.commit((u) => u.events.insert(note(i + 1), STORE_TEST_AT))))
    const roundTrips = (store as unknown as { traffic: { roundTrips: number } }).traffic.roundTrips - before
    // The first ones alone, then what waited for them in a group or two.
    expect(roundTrips).toBeLessThanOrEqual(GROUPS_IN_FLIGHT + 2)
    expect((await store.events.after('s', 0, 100)).map((event) => event.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
  })

  it('fails only the unit the database refuses; the others of its group are stored', async () => {
    const store = await openStore()
    await store.commit((u) => {
      u.sessions.insert(sessionRecord('s'))
      u.events.insert(note(1), STORE_TEST_AT)
    })
    // Seq 1 is taken: the eighth unit is refused, in a group with units around it.
    const seqs = [2, 3, 4, 5, 6, 7, 8, 1, 9, 10, 11, 12]
    const outcomes = await Promise.allSettled(seqs.map((seq) => store.commit((u) => u.events.insert(note(seq), STORE_TEST_AT))))
    expect(outcomes.map((outcome) => outcome.status)).toEqual(seqs.map((seq) => (seq === 1 ? 'rejected' : 'fulfilled')))
    expect((outcomes[7] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError)
    const stored = await store.events.after('s', 0, 100)
    expect(stored.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    expect(stored[0]?.data).toBe(JSON.stringify({ seq: 1 }))
  })

  it("keeps each row's writes in the order their units were called: a call inserted, started and completed in one group ends completed", async () => {
    const store = await openStore()
    await store.commit((u) => u.sessions.insert(sessionRecord('s')))
    // Units in flight first, so that the three after them wait and go as one group.
    const ahead = Array.from({ length: GROUPS_IN_FLIGHT }, (_, i) => store.commit((u) => u.events.insert(note(i + 2), STORE_TEST_AT)))
    const lifecycle = [
      store.commit((u) => {
        u.schedules.insert({ id: 'sch', sessionId: 's', turnId: 't', status: 'running', groups: [['c']], createdAt: STORE_TEST_AT })
        u.schedules.insertCall({ sessionId: 's', id: 'c', scheduleId: 'sch', position: 0, name: 'Edit', input: { file_path: 'a.txt' } })
      }),
      store.commit((u) => u.schedules.markCallRunning('s', 'c', { file_path: 'a.txt' }, toolFlags(), STORE_TEST_AT)),
      store.commit((u) => {
        u.schedules.completeCall('s', succeededResult('c', 'done'), STORE_TEST_AT)
        u.schedules.setStatus('sch', 'completed', STORE_TEST_AT)
      }),
    ]
    await Promise.all([...ahead, ...lifecycle])
    const [call] = await store.schedules.calls('sch')
    expect(call).toMatchObject({ id: 'c', status: 'succeeded' })
    expect(await store.schedules.get('sch')).toMatchObject({ status: 'completed' })
  })

  it('sends units that wait behind a unit the database holds up once it has stalled, not after it', async () => {
    const store = await openStore()
    await store.commit((u) => u.sessions.insert(sessionRecord('s')))
    const blocker = new pg.Client({ connectionString: url })
    await blocker.connect()
    try {
      await blocker.query('BEGIN')
      await blocker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE')
      let heldUp = false
      const held = store.commit((u) => u.events.insert(note(1), STORE_TEST_AT)).then(() => (heldUp = true))
      const started = performance.now()
      await store.commit((u) => u.sessions.setTodos('s', [], STORE_TEST_AT))
      const waitedMs = performance.now() - started
      expect(heldUp).toBe(false)
      expect(waitedMs).toBeGreaterThanOrEqual(STALLED_MS - 1)
      expect(waitedMs).toBeLessThan(1_000)
      await blocker.query('COMMIT')
      await held
    } finally {
      await blocker.end()
    }
  })
})
