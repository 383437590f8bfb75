/**
 * Which backend the running test project stores in: in the `postgres` project (vitest.config.ts)
 * every test server gets a database of its own on the run's private PostgreSQL server; in the
 * `sqlite` project, none (the SQLite file in the data directory).
 */
import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { createDatabaseIn, dropDatabaseIn } from './private-postgres.js'

export type TestBackend = 'sqlite' | 'postgres'

export function testBackend(): TestBackend {
  return postgresDir() === undefined ? 'sqlite' : 'postgres'
}

// Provided by the postgres project's global setup only: in the sqlite project there is none.
function postgresDir(): string | undefined {
  return inject('postgresDir')
}

// Every database this test file made, dropped after the file (test/support/drop-test-databases.ts).
const made: string[] = []
// A data directory's database: a server restarted on that directory finds what it stored.
const ofDataDir = new Map<string, Promise<string | undefined>>()

/** A new empty database's URL in the postgres project; undefined in the sqlite project. */
export async function freshDatabaseUrl(): Promise<string | undefined> {
  const dir = postgresDir()
  if (dir === undefined) return undefined
  const url = await createDatabaseIn(dir, `t_${process.pid}_${randomBytes(6).toString('hex')}`)
  made.push(url)
  return url
}

/**
 * The database that belongs with `dataDir` in the postgres project (made on the first ask, the
 * same one for every server started on that directory); undefined in the sqlite project.
 */
export function databaseUrlOf(dataDir: string): Promise<string | undefined> {
  let url = ofDataDir.get(dataDir)
  if (url === undefined) {
    url = freshDatabaseUrl()
    ofDataDir.set(dataDir, url)
  }
  return url
}

/** Drops every database the test file made; its servers are closed by then. */
export async function dropDatabasesOfFile(): Promise<void> {
  ofDataDir.clear()
  for (const url of made.splice(0)) await dropDatabase(url)
}

/** Drops the database a `freshDatabaseUrl` made (its connections ended by force), so a run does not fill the disk. */
export async function dropDatabase(url: string): Promise<void> {
  const dir = postgresDir()
  if (dir === undefined) return
  await dropDatabaseIn(dir, decodeURIComponent(new URL(url).pathname.slice(1)))
}
