/**
 * Issue 12, damaged, foreign or newer databases: each is refused at start with one line
 * naming the file and what is wrong, and is left exactly as it was. Real files throughout.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, closeSync, writeSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hasCode, StartupError, type ErrorCode } from '../../src/contracts/errors.js'
import { APPLICATION_ID } from '../../src/storage/sqlite/database-check.js'
import { MIGRATIONS_DIR, openDatabase, readMigrations, type Db } from '../../src/storage/sqlite/database.js'
import { tempDir } from '../support/temp-dirs.js'

let dir: string
let file: string
const NEWEST = Math.max(...readMigrations().map((migration) => migration.version))

beforeEach(async () => {
  dir = await tempDir('dbcheck')
  file = path.join(dir, 'toolexec.db')
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

interface FileState {
  readonly sha256: string
  readonly mtimeMs: number
  readonly entries: string[]
}

const fileState = (): FileState => ({
  sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
  mtimeMs: statSync(file).mtimeMs,
  entries: readdirSync(dir).sort(),
})

/** openDatabase refuses with `code` and a message naming the file, and the file is untouched. */
function expectRefused(code: ErrorCode, message: RegExp): void {
  const before = fileState()
  let thrown: unknown
  try {
    openDatabase(file).close()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(StartupError)
  expect(hasCode(thrown, code), String(thrown)).toBe(true)
  expect((thrown as Error).message).toContain(`Database ${file} `)
  expect((thrown as Error).message).toMatch(message)
  expect((thrown as Error).message).not.toContain('\n')
  expect(fileState()).toEqual(before)
}

function toolexecDb(fill: (db: Db) => void = () => {}): void {
  const db = openDatabase(file)
  fill(db)
  db.close()
}

function foreignDb(fill: (db: Database.Database) => void): void {
  const db = new Database(file)
  fill(db)
  db.close()
}

function overwrite(offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+')
  try {
    writeSync(fd, bytes, 0, bytes.length, offset)
  } finally {
    closeSync(fd)
  }
}

function seedEvents(db: Db, count: number): void {
  db.prepare("INSERT INTO sessions (id, workspace, permission_mode, interactive, created_at) VALUES ('s1', '/w', 'default', 1, 'now')").run()
  const insert = db.prepare('INSERT INTO events (session_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)')
  const data = JSON.stringify({ text: 'x'.repeat(300) })
  db.transaction(() => {
    for (let seq = 1; seq <= count; seq++) insert.run('s1', seq, 'T', 'now', data)
  })()
}

describe('a damaged database is refused and left as it was', () => {
  it('a file that is not SQLite at all (garbage header)', () => {
    writeFileSync(file, Buffer.alloc(8_192, 'garbage!'))
    expectRefused('STORE_ERR_DB_DAMAGED', /its header does not start with "SQLite format 3"/)
  })

  it('a file shorter than the 100-byte header', () => {
    writeFileSync(file, 'SQLite format 3\0')
    expectRefused('STORE_ERR_DB_DAMAGED', /16 bytes long, shorter than an SQLite header/)
  })

  it('a header whose page size is not a power of two', () => {
    toolexecDb()
    overwrite(16, Buffer.from([0x03, 0x00]))
    expectRefused('STORE_ERR_DB_DAMAGED', /page size of 768/)
  })

  it('a toolexec database with a page overwritten in the middle of the file (quick_check)', () => {
    toolexecDb((db) => seedEvents(db, 5_000))
    const size = statSync(file).size
    expect(size).toBeGreaterThan(1_000_000)
    const pageSize = readFileSync(file).readUInt16BE(16)
    overwrite(Math.floor(size / 2 / pageSize) * pageSize, Buffer.alloc(pageSize, 0xa5))
    expectRefused('STORE_ERR_DB_DAMAGED', /is damaged: quick_check (found|failed) /)
  })
})

describe('a foreign database is refused and left as it was', () => {
  it('an SQLite file with another application_id', () => {
    foreignDb((db) => {
      db.pragma('application_id = 0x12345678')
      db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)')
    })
    expectRefused('STORE_ERR_DB_FOREIGN', /not a toolexec database: its application_id is 0x12345678/)
  })

  it('an SQLite file with application_id 0 and tables of its own', () => {
    foreignDb((db) => db.exec("CREATE TABLE sessions (id TEXT); CREATE TABLE events (x); INSERT INTO sessions VALUES ('mine')"))
    expectRefused('STORE_ERR_DB_FOREIGN', /it holds other tables \(events, sessions\)/)
  })

  it("an SQLite file with another framework's schema_migrations", () => {
    foreignDb((db) => db.exec("CREATE TABLE schema_migrations (version TEXT PRIMARY KEY); INSERT INTO schema_migrations VALUES ('20240101000000'); CREATE TABLE users (id)"))
    expectRefused('STORE_ERR_DB_FOREIGN', /schema_migrations table is not toolexec's/)
  })

  it('an SQLite file whose schema_migrations records other migrations', () => {
    foreignDb((db) =>
      db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL); INSERT INTO schema_migrations VALUES (1, '001_users.sql', 'now')"),
    )
    expectRefused('STORE_ERR_DB_FOREIGN', /schema_migrations does not record toolexec's migrations/)
  })
})

describe('a database from a newer toolexec is refused and left as it was', () => {
  it('its user_version is above the newest migration this build knows', () => {
    toolexecDb((db) => db.pragma(`user_version = ${NEWEST + 1}`))
    expectRefused('STORE_ERR_DB_NEWER', new RegExp(`newer toolexec \\(schema version ${NEWEST + 1}; this build knows up to ${NEWEST}\\)`))
  })

  it('its schema_migrations records a migration this build does not have', () => {
    toolexecDb((db) => db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, '999_future.sql', 'now')").run(999))
    expectRefused('STORE_ERR_DB_NEWER', /schema version 999; this build knows up to/)
  })
})

describe('a toolexec database is opened', () => {
  it("a new one is stamped with toolexec's application_id and the schema version", () => {
    toolexecDb()
    const db = new Database(file, { readonly: true })
    expect([db.pragma('application_id', { simple: true }), db.pragma('user_version', { simple: true })]).toEqual([APPLICATION_ID, NEWEST])
    db.close()
  })

  it('one from before the application_id (id 0, our schema_migrations) is adopted and stamped, its rows kept', () => {
    toolexecDb((db) => {
      seedEvents(db, 3)
      db.pragma('application_id = 0')
      db.pragma('user_version = 0')
    })
    const db = openDatabase(file)
    expect([db.pragma('application_id', { simple: true }), db.pragma('user_version', { simple: true })]).toEqual([APPLICATION_ID, NEWEST])
    expect(db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(3)
    db.close()
  })

  it('reopened with nothing to migrate, it is not written', () => {
    toolexecDb()
    const before = fileState()
    openDatabase(file).close()
    expect(fileState().sha256).toBe(before.sha256)
  })

  it("runs all of a start's migrations in one transaction: one that fails leaves the file at the version it had", () => {
    const older = readMigrations().filter((migration) => migration.version < 4)
    const db = openDatabase(file, older)
    db.close()
    const migrations = path.join(dir, 'migrations')
    mkdirSync(migrations)
    for (const migration of readMigrations()) copyFileSync(path.join(MIGRATIONS_DIR, migration.name), path.join(migrations, migration.name))
    writeFileSync(path.join(migrations, '901_broken.sql'), 'SELECT * FROM no_such_table;')
    expect(() => openDatabase(file, readMigrations(migrations))).toThrow(/no_such_table/)
    const after = new Database(file, { readonly: true })
    expect(after.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual([1, 2, 3])
    expect(after.pragma('user_version', { simple: true })).toBe(3)
    expect(after.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'events_in_commit_order' OR name = 'schedule_aborts'").pluck().get()).toBe(0)
    after.close()
  })
})
