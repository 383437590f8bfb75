/**
 * @module Opening the SQLite database: checked first (see database-check.ts), then WAL,
 * synchronous=NORMAL, foreign keys, and the numbered migrations of `migrations/`, each
 * applied once, all of a start's in one transaction that also stamps toolexec's
 * application_id and the schema version (user_version).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { APPLICATION_ID, checkDatabaseFile } from './database-check.js'
// Marks SQLite's errors with what they say of the storage (full, damaged) before any is thrown.
import './sqlite-errors.js'

export type Db = Database.Database

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/sqlite/', import.meta.url))
const MIGRATION_FILE = /^(\d+)_[\w-]+\.sql$/

export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((name) => ({ name, match: MIGRATION_FILE.exec(name) }))
    .filter((file): file is { name: string; match: RegExpExecArray } => file.match !== null)
    .map((file) => ({ version: Number(file.match[1]), name: file.name, sql: readFileSync(path.join(dir, file.name), 'utf8') }))
    .sort((a, b) => a.version - b.version)
}

export function openDatabase(file: string, migrations: readonly Migration[] = readMigrations()): Db {
  if (file !== ':memory:') {
    mkdirSync(path.dirname(file), { recursive: true })
    checkDatabaseFile(file, migrations)
  }
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  applyMigrations(db, migrations)
  return db
}

/** Returns the versions it applied; a version already recorded is skipped. One that fails rolls back them all. */
export function applyMigrations(db: Db, migrations: readonly Migration[]): number[] {
  return db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
    const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[])
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
    const done: number[] = []
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue
      db.exec(migration.sql)
      record.run(migration.version, migration.name, new Date().toISOString())
      done.push(migration.version)
    }
    stamp(db)
    return done
  })()
}

/** Written only when they differ: a start with nothing to migrate writes nothing. */
function stamp(db: Db): void {
  const version = Number(db.prepare('SELECT coalesce(max(version), 0) FROM schema_migrations').pluck().get())
  if (db.pragma('application_id', { simple: true }) !== APPLICATION_ID) db.pragma(`application_id = ${APPLICATION_ID}`)
  if (db.pragma('user_version', { simple: true }) !== version) db.pragma(`user_version = ${version}`)
}
