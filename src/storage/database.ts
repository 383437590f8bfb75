/**
 * @module Opening the SQLite database: WAL, synchronous=NORMAL, foreign keys, and the
 * numbered migrations of `migrations/`, each applied once in its own transaction.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'

export type Db = Database.Database

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url))
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
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  applyMigrations(db, migrations)
  return db
}

/** Returns the versions it applied; a version already recorded is skipped. */
export function applyMigrations(db: Db, migrations: readonly Migration[]): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[])
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
  const done: number[] = []
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue
    db.transaction(() => {
      db.exec(migration.sql)
      record.run(migration.version, migration.name, new Date().toISOString())
    })()
    done.push(migration.version)
  }
  return done
}
