/**
 * @module The PostgreSQL schema's numbered migrations (migrations/postgres/), applied in one
 * transaction under an advisory lock, so that servers starting together on one database
 * migrate it once. Versions are shared with SQLite's: one number names one logical schema.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type pg from 'pg'
import { fileURLToPath } from 'node:url'
import { StartupError } from '../../contracts/errors.js'

export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/postgres/', import.meta.url))
const MIGRATION_FILE = /^(\d+)_[\w-]+\.sql$/
// Any constant of toolexec's own: two servers migrating at once take turns on it.
const MIGRATION_LOCK = 0x746f6f6c

export interface PostgresMigration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

export function readPostgresMigrations(dir = POSTGRES_MIGRATIONS_DIR): PostgresMigration[] {
  return readdirSync(dir)
    .map((name) => ({ name, match: MIGRATION_FILE.exec(name) }))
    .filter((file): file is { name: string; match: RegExpExecArray } => file.match !== null)
    .map((file) => ({ version: Number(file.match[1]), name: file.name, sql: readFileSync(path.join(dir, file.name), 'utf8') }))
    .sort((a, b) => a.version - b.version)
}

/**
 * Returns the versions it applied; one that fails rolls back them all.
 * @throws StartupError when the database records a version this build does not have
 */
export async function applyPostgresMigrations(client: pg.Client, migrations: readonly PostgresMigration[], databaseName: string): Promise<number[]> {
  await client.query('BEGIN')
  try {
    const done = await migrate(client, migrations, databaseName)
    await client.query('COMMIT')
    return done
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

async function migrate(client: pg.Client, migrations: readonly PostgresMigration[], databaseName: string): Promise<number[]> {
  await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
  await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
  const applied = (await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((row) => Number(row.version))
  refuseUnknown(applied, migrations, databaseName)
  const done: number[] = []
  for (const migration of migrations) {
    if (applied.includes(migration.version)) continue
    await client.query(migration.sql)
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()])
    done.push(migration.version)
  }
  return done
}

function refuseUnknown(applied: readonly number[], migrations: readonly PostgresMigration[], databaseName: string): void {
  const known = new Set(migrations.map((migration) => migration.version))
  const newest = Math.max(0, ...known)
  const unknown = applied.filter((version) => !known.has(version))
  if (unknown.length === 0) return
  const highest = Math.max(...unknown)
  if (highest > newest) throw new StartupError('STORE_ERR_DB_NEWER', [databaseName, highest, newest])
  throw new StartupError('STORE_ERR_DB_FOREIGN', [databaseName, `it records schema version ${highest}, which this build does not have`])
}
