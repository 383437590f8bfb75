/**
 * Migration 010 (each result stored once) on a database written before it: a server runs
 * calls (one ends, one is still running), its rows are copied into a database migrated to
 * 009 the way that schema stored them (every part of a result in its own column, ), and a server started on that file migrates it, recovers the running
 * call, and answers history, schedules and the event replay exactly as before.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import type { HistoryEntry, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { openDatabase, readMigrations } from '../../src/storage/sqlite/database.js'
import { readAllEvents } from '../support/crash-child.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { until } from '../support/until.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'

const servers: TestServer[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

// The statements of the store before migration 010, as they wrote every call and event.
const OLD_INSERT_CALL = `INSERT INTO tool_calls (session_id, id, schedule_id, position, name, input_json, depends_on_json, resolved_input_json,
    flags_json, status, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
const OLD_COMPLETE_CALL = `UPDATE tool_calls SET status = ?, completed_at = ?, output_json = ?, model_content_json = ?, display_json = ?,
    serialization_json = ?, error_json = ?, perf_json = ?, result_json = ? WHERE session_id = ? AND id = ?`
const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))
const UNCHANGED_TABLES = ['events', 'sessions', 'schedules', 'permission_requests', 'session_grants', 'artifacts', 'todos', 'project_rules', 'client_http_tools', 'schedule_aborts', 'session_sandbox']

/** A database file at schema 009 holding what `source` has committed, stored as 009 stored it. */
function writeAs009(source: string, target: string): void {
  openDatabase(
    target,
    readMigrations().filter((migration) => migration.version <= 9),
  ).close()
  const db = new Database(target)
  try {
    db.pragma('foreign_keys = ON')
    db.exec(`ATTACH DATABASE '${source}' AS live`)
    db.transaction(() => {
      for (const table of UNCHANGED_TABLES) db.exec(`INSERT INTO main.${table} SELECT * FROM live.${table}`)
      copyCalls(db)
    })()
    db.exec('DETACH DATABASE live')
  } finally {
    db.close()
  }
}

function copyCalls(db: Database.Database): void {
  const insert = db.prepare(OLD_INSERT_CALL)
  const complete = db.prepare(OLD_COMPLETE_CALL)
  for (const row of db.prepare('SELECT * FROM live.tool_calls ORDER BY rowid').all() as Record<string, string | number | null>[]) {
    insert.run(row.session_id, row.id, row.schedule_id, row.position, row.name, row.input_json, row.depends_on_json, row.resolved_input_json, row.flags_json, row.status, row.started_at)
    if (typeof row.result_json !== 'string') continue
    const result = JSON.parse(row.result_json) as ToolExecutionResult
    const parts = [json(result.output), JSON.stringify(result.modelContent), json(result.display), JSON.stringify(result.serialization), json(result.error), JSON.stringify(result.perf)]
    complete.run(result.status, row.completed_at, ...parts, row.result_json, row.session_id, row.id)
  }
}

async function lastEventId(server: TestServer, sessionId: string): Promise<number> {
  return (await server.json<Session>('GET', `/sessions/${sessionId}`)).body.lastEventId
}

const storedEvents = (file: string): unknown[] => {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare('SELECT id, session_id, seq, type, at, data FROM events ORDER BY id').all()
  } finally {
    db.close()
  }
}

describe('migration 010 on a database written before it', () => {
  it('keeps history, schedules and the replay exactly, recovers a running call, and stores new results once', async () => {
    const before = await startTestServer()
    servers.push(before)
    await before.json('POST', '/sessions', { id: 'done', permissionMode: 'acceptEdits' })
    await before.json('POST', '/sessions', { id: 'crashed' })
    const done = await before.json<ScheduleAcceptedReply>('POST', '/schedules', {
      sessionId: 'done',
      createSession: {},
      calls: [
        { id: 'read-ok', name: 'Read', input: { file_path: 'present.txt' } },
        { id: 'edit-fails', name: 'Edit', input: { file_path: 'present.txt', fail: true } },
      ],
    })
    const doneReply = (await before.json<ScheduleReply>('GET', `/schedules/${done.body.scheduleId}?wait=10`)).body
    expect(doneReply.calls.map((call) => call.status)).toEqual(['succeeded', 'failed'])
    const crashed = await before.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 'crashed', createSession: {}, calls: [{ id: 'sleep', name: 'Sleep', input: { ms: 60_000 } }] })
    await until(async () => (await before.json<ScheduleReply>('GET', `/schedules/${crashed.body.scheduleId}`)).body.calls[0]?.status === 'running')

    const history = (await before.json<{ entries: HistoryEntry[] }>('GET', '/sessions/done/history')).body
    const events = await readAllEvents(before.url, 'done', await lastEventId(before, 'done'))
    const crashedSeq = await lastEventId(before, 'crashed')
    const oldDir = tempDirSync('stored-once')
    const oldFile = path.join(oldDir, 'toolexec.db')
    // What is committed now is what a kill -9 would leave: the Sleep call running.
    writeAs009(path.join(before.dataDir, 'toolexec.db'), oldFile)
    const oldEvents = storedEvents(oldFile)
    const oldParts = new Database(oldFile, { readonly: true })
    expect(oldParts.prepare("SELECT output_json FROM tool_calls WHERE id = 'read-ok'").pluck().get()).toBe(JSON.stringify('contents of present.txt'))
    oldParts.close()

    const after = await startTestServer({ dataDir: oldDir })
    servers.push(after)
    const db = sqliteDatabaseOf(after.runtime.store)
    expect(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBeGreaterThanOrEqual(10)
    expect((db.prepare('PRAGMA table_info(tool_calls)').all() as { name: string }[]).map((column) => column.name)).not.toContain('output_json')

    expect((await after.json('GET', '/sessions/done/history')).body).toEqual(history)
    expect((await after.json('GET', `/schedules/${done.body.scheduleId}`)).body).toEqual(doneReply)
    expect(await readAllEvents(after.url, 'done', events.length)).toEqual(events)
    // Every event kept its row, its sequence, its time and its data byte for byte.
    expect(storedEvents(path.join(oldDir, 'toolexec.db')).slice(0, oldEvents.length)).toEqual(oldEvents)

    // Recovery ended the call that was running, gaplessly after the events copied.
    const recovered = (await after.json<ScheduleReply>('GET', `/schedules/${crashed.body.scheduleId}?wait=10`)).body
    expect(recovered.calls.map((call) => call.status)).toEqual(['interrupted'])
    const crashedEvents = await readAllEvents(after.url, 'crashed', await lastEventId(after, 'crashed'))
    expect(crashedEvents.map((frame) => frame.id)).toEqual(crashedEvents.map((_, i) => i + 1))
    expect(crashedEvents.length).toBeGreaterThan(crashedSeq)

    // A new call after the migration: stored once, read back whole.
    const next = await after.json<ScheduleAcceptedReply>('POST', '/schedules', {
      sessionId: 'done',
      createSession: {},
      calls: [{ id: 'edit-again', name: 'Edit', input: { file_path: 'present.txt', fail: true } }],
    })
    expect((await after.json<ScheduleReply>('GET', `/schedules/${next.body.scheduleId}?wait=10`)).body.calls[0]?.status).toBe('failed')
    const entries = (await after.json<{ entries: HistoryEntry[] }>('GET', '/sessions/done/history')).body.entries
    expect(entries.map((entry) => entry.callId)).toEqual(['read-ok', 'edit-fails', 'edit-again'])
    const stored = db.prepare("SELECT result_json FROM tool_calls WHERE id = 'edit-again'").pluck().get() as string
    expect(JSON.parse(stored)).toMatchObject({ callId: 'edit-again', status: 'failed' })
  })
})
