/**
 * The PostgreSQL store's connection, lost and made again: it is replaced before the next
 * operation, retaking the owner lock (refused, naming the holder, when another server took the
 * database meanwhile); operations keep the order they were called in; trouble() says why the
 * database does not answer, and nothing once it does; close() waits for what was called before.
 */
import pg from 'pg'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import type { OpenedStore } from '../../src/contracts/store.js'
import { openPostgresStore } from '../../src/storage/postgres/open-postgres.js'
import { connectPipelined } from '../../src/storage/postgres/pg-client.js'
import { PgConnection } from '../../src/storage/postgres/pg-connection.js'
import { statement } from '../../src/storage/postgres/statements.js'
import { sessionRecord, STORE_TEST_AT } from '../support/store-records.js'
import { freshDatabaseUrl } from '../support/test-database.js'

const logger = pino({ level: 'silent' })
const opened: OpenedStore[] = []

async function newDatabase(): Promise<string> {
  const url = await freshDatabaseUrl()
  if (url === undefined) throw new Error('this suite runs only in the postgres project')
  return url
}

async function open(url: string): Promise<OpenedStore> {
  const store = await openPostgresStore(url, { logger })
  opened.push(store)
  return store
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
})

/** Ends every connection of this process's servers to the database, as an administrator or a failover would, and waits until they are gone. */
async function terminateServers(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    const ended = await admin.query(
      "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE 'toolexec (PID %'",
    )
    expect(ended.rowCount).toBeGreaterThan(0)
  } finally {
    await admin.end()
  }
}

/** What `run` rejects with, or undefined when it resolves. */
async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (error: unknown) => error,
  )
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

describe('the PostgreSQL connection', () => {
  it('is replaced before the next operation once the server ended it, and nothing committed is lost', async () => {
    const url = await newDatabase()
    const { store } = await open(url)
    await store.commit((u) => u.sessions.insert(sessionRecord('kept')))
    await terminateServers(url)
    await pause(100)
    const unit = store.commit((u) => u.sessions.insert(sessionRecord('after')))
    const read = store.sessions.ids()
    await unit
    expect((await read).sort()).toEqual(['after', 'kept'])
  })

  it('fails the operations sent on a connection as it ends with API_ERR_STORAGE_UNAVAILABLE, and serves the next ones', async () => {
    const url = await newDatabase()
    const { store } = await open(url)
    await store.commit((u) => u.sessions.insert(sessionRecord('s')))
    const ending = terminateServers(url)
    const inFlight = await Promise.all(Array.from({ length: 20 }, () => failureOf(() => store.sessions.ids())))
    await ending
    for (const failure of inFlight.filter((error) => error !== undefined)) expect(failure).toMatchObject({ code: 'API_ERR_STORAGE_UNAVAILABLE' })
    await store.sessions.ids().catch(() => undefined)
    expect(await store.sessions.ids()).toEqual(['s'])
  })

  it('keeps operations in the order they were called across a reconnect', async () => {
    const url = await newDatabase()
    const { store } = await open(url)
    await store.commit((u) => u.sessions.insert(sessionRecord('s')))
    // One connection's order (the store groups its units' commits: group-commit.ts).
    const connection = new PgConnection(url, connectPipelined)
    try {
      await connection.rows({ text: 'SELECT 1' })
      await terminateServers(url)
      await pause(100)
      const seen = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const unit = connection.commit([statement('insertEvent', 's', i + 1, 'Note', STORE_TEST_AT, '{}')])
          const last = connection.rows(statement('lastSeq', 's'))
          await unit
          return (await last)[0]?.seq
        }),
      )
      expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => i + 1))
    } finally {
      await connection.close()
    }
  })

  it('trouble() is undefined while the database answers, and the store answers nothing once closed; close() lets what was called before it finish', async () => {
    const url = await newDatabase()
    const first = await openPostgresStore(url, { logger })
    expect(await first.trouble()).toBeUndefined()
    const unit = first.store.commit((u) => u.sessions.insert(sessionRecord('last')))
    await first.close()
    await unit
    expect(await failureOf(() => first.store.sessions.ids())).toMatchObject({ code: 'API_ERR_STORAGE_UNAVAILABLE' })
    expect(await first.trouble()).toMatchObject({ reason: 'the store is closed' })
    const next = await open(url)
    expect(await next.store.sessions.ids()).toEqual(['last'])
  })
})
