/**
 * A consistent copy of a live test server's storage in a new data directory: what a server
 * started cold on that directory finds. On SQLite the database file (VACUUM INTO); on
 * PostgreSQL a new database, the directory's own, filled from a snapshot by pg_dump and psql.
 */
import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'
import { postgresBinDir } from './private-postgres.js'
import type { TestServer } from './server.js'
import { tempDir } from './temp-dirs.js'
import { databaseUrlOf } from './test-database.js'

const run = promisify(execFile)

export async function coldCopyOf(server: TestServer): Promise<string> {
  const dir = await tempDir('cold')
  if (server.databaseUrl === undefined) {
    sqliteDatabaseOf(server.runtime.store).prepare('VACUUM INTO ?').run(path.join(dir, 'toolexec.db'))
    return dir
  }
  const target = await databaseUrlOf(dir)
  if (target === undefined) throw new Error('a server on PostgreSQL outside the postgres test project')
  await copyDatabase(server.databaseUrl, target)
  return dir
}

async function copyDatabase(from: string, to: string): Promise<void> {
  const bin = postgresBinDir()
  if (bin === undefined) throw new Error('PostgreSQL is not installed: pg_dump was not found')
  const dump = path.join(await tempDir('dump'), 'copy.sql')
  await run(path.join(bin, 'pg_dump'), ['--no-owner', '--file', dump, from])
  await run(path.join(bin, 'psql'), ['--quiet', '--no-psqlrc', '--set', 'ON_ERROR_STOP=1', '--file', dump, to])
}
