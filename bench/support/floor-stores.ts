/**
 * Where the floor (floor-child.ts) keeps its calls: a SQLite file beside toolexec's, or a
 * PostgreSQL database on the same server as toolexec's (d). Each holds only what any design
 * must: the schedule, the call with its result, and the session's numbered events behind a
 * unique (session, seq) key. A commit writes everything queued since the last one; on
 * PostgreSQL that is one prepared statement (its rows passed as arrays), the fewest
 * statements and round trips a commit can take.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { startWalCheckpointer } from '../../src/storage/sqlite/wal-checkpointer.js'

export interface FloorEvent {
  readonly seq: number
  readonly type: string
  readonly at: string
  readonly data: string
}

/** A call accepted: its schedule, its row and its first events, committed before the 202. */
export interface AcceptedCall {
  readonly sessionId: string
  readonly scheduleId: string
  readonly groupsJson: string
  readonly callId: string
  readonly name: string
  readonly inputJson: string
  readonly events: readonly FloorEvent[]
}

/** A call ended: its result, its schedule's end and its last events, committed before they are sent. */
export interface EndedCall {
  readonly sessionId: string
  readonly scheduleId: string
  readonly callId: string
  readonly resultJson: string
  readonly events: readonly FloorEvent[]
}

export interface FloorBatch {
  readonly accepted: readonly AcceptedCall[]
  readonly ended: readonly EndedCall[]
}

export interface FloorStore {
  commit(batch: FloorBatch): Promise<void>
  /** What the bench checks after the run, and the WAL's peak on SQLite. */
  report(): Promise<{ succeededCalls: number; tool_calls: number; events: number; walPeakBytes?: number }>
}

const firstAt = (events: readonly FloorEvent[]): string => (events[0] as FloorEvent).at

export function sqliteFloorStore(dataDir: string): FloorStore {
  const db = new Database(path.join(dataDir, 'floor.db'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec(`
CREATE TABLE events (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL, data TEXT NOT NULL);
CREATE UNIQUE INDEX events_by_session ON events(session_id, seq);
CREATE TABLE schedules (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL, groups_json TEXT NOT NULL, created_at TEXT NOT NULL, completed_at TEXT);
CREATE TABLE tool_calls (session_id TEXT NOT NULL, id TEXT NOT NULL, schedule_id TEXT NOT NULL, name TEXT NOT NULL, input_json TEXT NOT NULL,
  status TEXT NOT NULL, result_json TEXT, PRIMARY KEY (session_id, id));
`)
  const insertEvent = db.prepare('INSERT INTO events (session_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)')
  const insertSchedule = db.prepare("INSERT INTO schedules (id, session_id, status, groups_json, created_at) VALUES (?, ?, 'running', ?, ?)")
  const insertCall = db.prepare("INSERT INTO tool_calls (session_id, id, schedule_id, name, input_json, status) VALUES (?, ?, ?, ?, ?, 'running')")
  const completeCall = db.prepare("UPDATE tool_calls SET status = 'succeeded', result_json = ? WHERE session_id = ? AND id = ?")
  const completeSchedule = db.prepare("UPDATE schedules SET status = 'completed', completed_at = ? WHERE id = ?")
  const insertEvents = (sessionId: string, events: readonly FloorEvent[]): void => {
    for (const event of events) insertEvent.run(sessionId, event.seq, event.type, event.at, event.data)
  }
  const write = db.transaction(({ accepted, ended }: FloorBatch) => {
    for (const call of accepted) {
      insertSchedule.run(call.scheduleId, call.sessionId, call.groupsJson, firstAt(call.events))
      insertCall.run(call.sessionId, call.callId, call.scheduleId, call.name, call.inputJson)
      insertEvents(call.sessionId, call.events)
    }
    for (const call of ended) {
      completeCall.run(call.resultJson, call.sessionId, call.callId)
      completeSchedule.run(firstAt(call.events), call.scheduleId)
      insertEvents(call.sessionId, call.events)
    }
  })
  // Checkpointed by toolexec's own worker, off the request thread, which is what made this floor fastest.
  const checkpointer = startWalCheckpointer(db)
  let walPeakBytes = 0
  const walSampler = setInterval(() => {
    walPeakBytes = Math.max(walPeakBytes, statSync(`${db.name}-wal`, { throwIfNoEntry: false })?.size ?? 0)
  }, 250)
  walSampler.unref()
  return {
    async commit(batch) {
      for (let gate = checkpointer.writeGate(); gate !== undefined; gate = checkpointer.writeGate()) await gate
      write(batch)
    },
    report() {
      clearInterval(walSampler)
      const succeeded = db.prepare("SELECT count(*) FROM tool_calls WHERE status = 'succeeded'").pluck().get() as number
      const events = db.prepare('SELECT count(*) FROM events').pluck().get() as number
      checkpointer.stop()
      db.close()
      return Promise.resolve({ succeededCalls: succeeded, tool_calls: succeeded, events, walPeakBytes })
    },
  }
}

export const POSTGRES_SCHEMA = `
CREATE TABLE events (session_id TEXT COLLATE "C" NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE schedules (id TEXT COLLATE "C" PRIMARY KEY, session_id TEXT COLLATE "C" NOT NULL, status TEXT NOT NULL, groups_json TEXT NOT NULL, created_at TEXT NOT NULL, completed_at TEXT);
CREATE TABLE tool_calls (session_id TEXT COLLATE "C" NOT NULL, id TEXT COLLATE "C" NOT NULL, schedule_id TEXT COLLATE "C" NOT NULL, name TEXT NOT NULL, input_json TEXT NOT NULL,
  status TEXT NOT NULL, result_json TEXT, PRIMARY KEY (session_id, id));
`

// One statement for a whole commit: an accepted call's UPDATE never meets its INSERT in the same
// commit (a call ends only after its acceptance is committed), so one snapshot serves all parts.
// Its parts are exported for the cluster floor's commit (floor-cluster-store.ts), which adds its fence.
export const COMMIT_WRITES = `
WITH new_schedules AS (
  INSERT INTO schedules (id, session_id, status, groups_json, created_at)
  SELECT id, session_id, 'running', groups_json, created_at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS s(id, session_id, groups_json, created_at)
), new_calls AS (
  INSERT INTO tool_calls (session_id, id, schedule_id, name, input_json, status)
  SELECT session_id, id, schedule_id, name, input_json, 'running' FROM unnest($2::text[], $5::text[], $1::text[], $6::text[], $7::text[]) AS c(session_id, id, schedule_id, name, input_json)
), new_events AS (
  INSERT INTO events (session_id, seq, type, at, data) SELECT * FROM unnest($8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[])
), ended_calls AS (
  UPDATE tool_calls AS t SET status = 'succeeded', result_json = e.result_json
  FROM unnest($13::text[], $14::text[], $15::text[]) AS e(session_id, id, result_json) WHERE t.session_id = e.session_id AND t.id = e.id
)`
export const END_SCHEDULES = "UPDATE schedules AS s SET status = 'completed', completed_at = e.at FROM unnest($16::text[], $17::text[]) AS e(id, at) WHERE s.id = e.id"
const COMMIT_BATCH = `${COMMIT_WRITES}\n${END_SCHEDULES}`

/** The values of COMMIT_BATCH's seventeen parameters. */
export function batchValues({ accepted, ended }: FloorBatch): unknown[][] {
  const events = [...accepted, ...ended].flatMap((call) => call.events.map((event) => ({ sessionId: call.sessionId, event })))
  return [
    accepted.map((call) => call.scheduleId),
    accepted.map((call) => call.sessionId),
    accepted.map((call) => call.groupsJson),
    accepted.map((call) => firstAt(call.events)),
    accepted.map((call) => call.callId),
    accepted.map((call) => call.name),
    accepted.map((call) => call.inputJson),
    events.map(({ sessionId }) => sessionId),
    events.map(({ event }) => event.seq),
    events.map(({ event }) => event.type),
    events.map(({ event }) => event.at),
    events.map(({ event }) => event.data),
    ended.map((call) => call.sessionId),
    ended.map((call) => call.callId),
    ended.map((call) => call.resultJson),
    ended.map((call) => call.scheduleId),
    ended.map((call) => firstAt(call.events)),
  ]
}

export async function postgresFloorStore(url: string): Promise<FloorStore> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(POSTGRES_SCHEMA)
  const count = async (sql: string): Promise<number> => Number((await client.query<{ n: string }>(sql)).rows[0]?.n)
  return {
    async commit(batch) {
      await client.query({ name: 'floor_commit', text: COMMIT_BATCH, values: batchValues(batch) })
    },
    async report() {
      const succeeded = await count("SELECT count(*) AS n FROM tool_calls WHERE status = 'succeeded'")
      const events = await count('SELECT count(*) AS n FROM events')
      await client.end()
      return { succeededCalls: succeeded, tool_calls: succeeded, events }
    },
  }
}
