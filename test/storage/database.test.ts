import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyMigrations, MIGRATIONS_DIR, openDatabase, readMigrations, type Db } from '../../src/storage/sqlite/database.js'
import { tempDir } from '../support/temp-dirs.js'

let dir: string
let db: Db | undefined

beforeEach(async () => {
  dir = await tempDir('db')
})

afterEach(async () => {
  db?.close()
  db = undefined
  await rm(dir, { recursive: true, force: true })
})

const file = (): string => path.join(dir, 'nested', 'toolexec.db')
const tables = (database: Db): string[] => database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]
const columns = (database: Db, table: string): string[] => (database.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name)
const schema = (database: Db): unknown[] => database.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all()
const recorded = (database: Db): number[] => database.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all() as number[]

function seed(database: Db): void {
  database.prepare("INSERT INTO sessions (id, workspace, permission_mode, interactive, created_at) VALUES ('s1', '/w', 'default', 1, 'now')").run()
  database.prepare("INSERT INTO events (session_id, seq, type, at, data) VALUES ('s1', 1, 'ScheduleAccepted', 'now', '{}')").run()
}

describe('openDatabase', () => {
  it('creates the folder and applies every numbered migration at start, recording each once', () => {
    db = openDatabase(file())
    const migrations = readMigrations()
    expect(migrations.length).toBeGreaterThan(0)
    expect(recorded(db)).toEqual(migrations.map((migration) => migration.version))
    expect(tables(db)).toEqual(expect.arrayContaining(['sessions', 'schedules', 'tool_calls', 'permission_requests', 'session_grants', 'artifacts', 'events', 'schema_migrations']))
  })

  it('keeps each result once per place it is read: whole in tool_calls.result_json and in its event, no part columns', () => {
    db = openDatabase(file())
    expect(columns(db, 'tool_calls')).toEqual([
      'session_id',
      'id',
      'schedule_id',
      'position',
      'name',
      'input_json',
      'depends_on_json',
      'resolved_input_json',
      'flags_json',
      'status',
      'started_at',
      'completed_at',
      'result_json',
    ])
    expect(columns(db, 'artifacts')).toEqual(expect.arrayContaining(['id', 'session_id', 'call_id', 'path', 'uri', 'bytes', 'media_type', 'retention', 'sha256']))
    expect(columns(db, 'events')).toEqual(['id', 'session_id', 'seq', 'type', 'at', 'data'])
  })

  it('sets WAL, synchronous=NORMAL and foreign keys, and enforces them', () => {
    db = openDatabase(file())
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('synchronous', { simple: true })).toBe(1)
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    const orphan = db.prepare("INSERT INTO schedules (id, session_id, turn_id, arrival, status, groups_json, created_at) VALUES ('x', 'no-session', 't', 1, 'queued', '[]', 'now')")
    expect(() => orphan.run()).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }))
  })

  it('opens an existing database again without applying anything twice or losing data', () => {
    db = openDatabase(file())
    seed(db)
    const before = schema(db)
    db.close()
    db = openDatabase(file())
    expect(recorded(db)).toEqual(readMigrations().map((migration) => migration.version))
    expect(schema(db)).toEqual(before)
    expect(db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(1)
  })
})

describe('applyMigrations', () => {
  it('moves events stored before 004 into commit order, keeping every row and its sequence', () => {
    const older = readMigrations().filter((migration) => migration.version < 4)
    db = openDatabase(file(), older)
    db.prepare("INSERT INTO sessions (id, workspace, permission_mode, interactive, created_at) VALUES ('s1', '/w', 'default', 1, 'now')").run()
    const insert = db.prepare('INSERT INTO events (session_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)')
    for (const [session, seq, at] of [
      ['b', 1, 't1'],
      ['a', 1, 't2'],
      ['a', 2, 't3'],
      ['b', 2, 't4'],
    ] as const)
      insert.run(session, seq, 'T', at, `{"seq":${seq}}`)
    expect(applyMigrations(db, readMigrations())).toContain(4)
    expect(db.prepare('SELECT session_id, seq, at FROM events ORDER BY id').all()).toEqual([
      { session_id: 'b', seq: 1, at: 't1' },
      { session_id: 'a', seq: 1, at: 't2' },
      { session_id: 'a', seq: 2, at: 't3' },
      { session_id: 'b', seq: 2, at: 't4' },
    ])
    expect(() => insert.run('a', 2, 'T', 't5', '{}')).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }))
  })

  it('010 drops the part columns of tool_calls, keeping every call, its rowid and its whole result', () => {
    db = openDatabase(
      file(),
      readMigrations().filter((migration) => migration.version < 10),
    )
    db.prepare("INSERT INTO sessions (id, workspace, permission_mode, interactive, created_at) VALUES ('s1', '/w', 'default', 1, 'now')").run()
    db.prepare("INSERT INTO schedules (id, session_id, turn_id, arrival, status, groups_json, created_at) VALUES ('sch', 's1', 't', 1, 'running', '[]', 'now')").run()
    const insert = db.prepare(`INSERT INTO tool_calls (rowid, session_id, id, schedule_id, position, name, input_json, status, output_json, perf_json, result_json)
      VALUES (?, 's1', ?, 'sch', ?, 'Read', '{}', ?, ?, ?, ?)`)
    insert.run(7, 'done', 0, 'succeeded', '"out"', '{"totalMs":1}', '{"callId":"done","output":"out"}')
    insert.run(3, 'running', 1, 'running', null, null, null)
    const kept = 'SELECT rowid, session_id, id, schedule_id, position, name, input_json, status, result_json FROM tool_calls ORDER BY rowid'
    const before = db.prepare(kept).all()
    expect(
      applyMigrations(
        db,
        readMigrations().filter((migration) => migration.version <= 10),
      ),
    ).toEqual([10])
    expect(db.prepare(kept).all()).toEqual(before)
    expect(columns(db, 'tool_calls')).not.toContain('output_json')
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([])
    const orphan = db.prepare("INSERT INTO tool_calls (session_id, id, schedule_id, position, name, input_json, status) VALUES ('s1', 'x', 'no-schedule', 0, 'Read', '{}', 'pending')")
    expect(() => orphan.run()).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }))
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tool_calls' AND sql IS NOT NULL").pluck().all()).toEqual(['tool_calls_by_schedule'])
  })

  it('is safe to run again: nothing is applied and nothing changes', () => {
    db = openDatabase(file())
    seed(db)
    const before = schema(db)
    expect(applyMigrations(db, readMigrations())).toEqual([])
    expect(schema(db)).toEqual(before)
    expect(db.prepare('SELECT count(*) FROM sessions').pluck().get()).toBe(1)
  })

  it('every SQL file can be run twice by hand, on an empty database and on a migrated one', () => {
    db = openDatabase(':memory:', [])
    for (const migration of readMigrations()) {
      db.exec(migration.sql)
      db.exec(migration.sql)
    }
    const byHand = schema(db)
    const migrated = openDatabase(file())
    try {
      seed(migrated)
      for (const migration of readMigrations()) migrated.exec(migration.sql)
      expect(schema(migrated).filter((row) => (row as { name: string }).name !== 'schema_migrations')).toEqual(byHand.filter((row) => (row as { name: string }).name !== 'schema_migrations'))
      expect(migrated.prepare('SELECT count(*) FROM events').pluck().get()).toBe(1)
    } finally {
      migrated.close()
    }
  })

  it('applies a new migration once, in version order, and rolls back one that fails', async () => {
    const migrations = path.join(dir, 'migrations')
    await mkdir(migrations)
    for (const migration of readMigrations()) await copyFile(path.join(MIGRATIONS_DIR, migration.name), path.join(migrations, migration.name))
    await writeFile(path.join(migrations, '900_extra.sql'), 'CREATE TABLE extra (id INTEGER PRIMARY KEY);')
    await writeFile(path.join(migrations, '901_broken.sql'), 'CREATE TABLE half (id INTEGER); SELECT * FROM no_such_table;')
    await writeFile(path.join(migrations, 'README.md'), 'not a migration')
    const found = readMigrations(migrations)
    expect(found.map((migration) => migration.name).slice(-2)).toEqual(['900_extra.sql', '901_broken.sql'])

    db = openDatabase(':memory:', found.slice(0, -1))
    expect(tables(db)).toContain('extra')
    expect(() => applyMigrations(db as Db, found)).toThrow(/no_such_table/)
    expect(tables(db)).not.toContain('half')
    expect(recorded(db)).not.toContain(901)
    expect(applyMigrations(db, found.slice(0, -1))).toEqual([])
  })
})
