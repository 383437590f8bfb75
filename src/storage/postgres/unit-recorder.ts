/**
 * @module A unit of work as the PostgreSQL store records it: each write becomes its statement,
 * in the order it was made, and nothing reaches the database until the unit is committed whole.
 * The writes it may make many of (schedules and their calls' schedulers inserted, calls
 * inserted, started and completed, schedules' statuses, events) go last, each kind as one
 * statement for all its rows (statements.ts), in that order: PostgreSQL parses and plans one
 * statement instead of one per row (a unit's text is never prepared). Nothing else in a unit
 * reads those rows (but marking schedules aborted or setting their groups, before which
 * they keep their place), and a call is inserted, started and completed in different units, so
 * the unit's outcome is the same.
 */
import type { UnitOfWork } from '../../contracts/store.js'
import { SESSION_DELETIONS } from '../rows.js'
import { unitWrites, type CachedRows, type Write, type WriteKey } from '../unit-writes.js'
import { MANY_KEYS, mayJoinOtherUnits, statement, statementOfMany, type ManyKey, type Statement } from './statements.js'

export interface RecordedUnit<T> {
  readonly value: T
  readonly statements: readonly Statement[]
  /** Whether it writes rows that the store's caches keep. */
  readonly writesSessions: boolean
  readonly writesProjectRules: boolean
  /** Sessions whose rows it writes (named by the write), and those it creates among them. */
  readonly sessions: ReadonlySet<string>
  readonly createdSessions: ReadonlySet<string>
  /** The sessions it adds events to, each with the highest seq it adds. */
  readonly eventSessions: ReadonlyMap<string, number>
  readonly deletedSessions: ReadonlySet<string>
  /** Whether it adds or removes an HTTP tool, which every server registers. */
  readonly writesClientTools: boolean
  /** Its writes in the order they were made. */
  readonly writes: readonly Recorded[]
  /** Whether it may share a transaction with other such units (mergeUnits). */
  readonly mergeable: boolean
}

/**
 * Where a write names its session among its values. The writes that name only a schedule or a
 * request (a status, groups, a decision, a grant) go with an event of that session.
 */
const SESSION_AT: Partial<Record<WriteKey, number>> = {
  insertSession: 0,
  insertSessionSandbox: 0,
  insertSessionFourEyes: 0,
  setSessionLabel: 0,
  insertCallScheduler: 0,
  setPermissionMode: 1,
  setTodos: 0,
  insertSchedule: 1,
  markSchedulesAborted: 1,
  insertCall: 0,
  markCallRunning: 3,
  setCallStatus: 1,
  completeCall: 3,
  insertEvent: 0,
  insertPermission: 1,
  insertGrant: 0,
  insertArtifact: 1,
  insertBackgroundTask: 0,
  endBackgroundTask: 4,
  markBackgroundTaskLost: 1,
  ...Object.fromEntries(SESSION_DELETIONS.map((key) => [key, 0])),
}

/** How many of a repeated write's last values name its row (calls by session and id, schedules by id); undefined for inserts. */
const ROW_KEY_LENGTH: Partial<Record<ManyKey, number>> = { markCallRunning: 2, completeCall: 2, setScheduleStatus: 1 }

/** Runs `build` against writers that only record; what `build` throws is thrown here and nothing is recorded. */
export function recordUnit<T>(build: (unit: UnitOfWork) => T): RecordedUnit<T> {
  const recorded: Recorded[] = []
  const touched = { sessions: false, projectRules: false }
  const sessions = new Set<string>()
  const createdSessions = new Set<string>()
  const eventSessions = new Map<string, number>()
  const deletedSessions = new Set<string>()
  let writesClientTools = false
  const write: Write = (key, ...values) => {
    recorded.push({ key, values })
    if (key === 'putClientTool' || key === 'deleteClientTool') writesClientTools = true
    const at = SESSION_AT[key]
    if (at === undefined) return
    const sessionId = String(values[at])
    sessions.add(sessionId)
    if (key === 'insertSession') createdSessions.add(sessionId)
    if (key === 'insertEvent') eventSessions.set(sessionId, Math.max(eventSessions.get(sessionId) ?? 0, Number(values[1])))
    if (key === SESSION_DELETIONS[0]) deletedSessions.add(sessionId)
  }
  const cached: CachedRows = {
    session: () => (touched.sessions = true),
    projectRules: () => (touched.projectRules = true),
  }
  const value = build(unitWrites(write, cached))
  return {
    value,
    statements: statementsOf(recorded),
    writesSessions: touched.sessions,
    writesProjectRules: touched.projectRules,
    sessions,
    createdSessions,
    eventSessions,
    deletedSessions,
    writesClientTools,
    writes: recorded,
    mergeable: recorded.every((write) => mayJoinOtherUnits(write.key)),
  }
}

/**
 * Mergeable units as one: their writes in order, the repeated ones of all of them last, each
 * kind as one statement, as if one unit had made them all. Each unit's own writes keep their
 * order, and none of them touches the repeated writes' tables (mayJoinOtherUnits), so each
 * unit's outcome is its own; the value is the first unit's.
 */
export function mergeUnits<T>(units: readonly RecordedUnit<T>[]): RecordedUnit<T> {
  const [first] = units
  if (first === undefined) throw new RangeError('no unit to merge')
  const writes = units.flatMap((unit) => unit.writes)
  const eventSessions = new Map<string, number>()
  for (const unit of units) for (const [sessionId, seq] of unit.eventSessions) eventSessions.set(sessionId, Math.max(eventSessions.get(sessionId) ?? 0, seq))
  const union = (of: (unit: RecordedUnit<T>) => ReadonlySet<string>): Set<string> => new Set(units.flatMap((unit) => [...of(unit)]))
  return {
    value: first.value,
    statements: statementsOf(writes),
    writesSessions: units.some((unit) => unit.writesSessions),
    writesProjectRules: units.some((unit) => unit.writesProjectRules),
    sessions: union((unit) => unit.sessions),
    createdSessions: union((unit) => unit.createdSessions),
    eventSessions,
    deletedSessions: union((unit) => unit.deletedSessions),
    writesClientTools: units.some((unit) => unit.writesClientTools),
    writes,
    mergeable: units.every((unit) => unit.mergeable),
  }
}

interface Recorded {
  readonly key: Parameters<Write>[0]
  readonly values: unknown[]
}

/**
 * The unit's statements: each write in its place, but the repeated ones last, each kind as one
 * statement. A schedule's status stays in its place in a unit that marks schedules aborted,
 * which reads that status.
 */
function statementsOf(recorded: readonly Recorded[]): Statement[] {
  const keepsPlace = keptInPlace(recorded)
  const statements: Statement[] = []
  const many = new Map<ManyKey, unknown[][]>()
  for (const { key, values } of recorded) {
    if (!MANY_KEYS.has(key) || keepsPlace.has(key)) statements.push(statement(key, ...values))
    else manyOf(many, key as ManyKey).push(values)
  }
  for (const key of MANY_KEYS as ReadonlySet<ManyKey>) {
    const rows = many.get(key)
    if (rows === undefined) continue
    const distinct = lastOfEachRow(rows, ROW_KEY_LENGTH[key])
    statements.push(statementOfMany(key, distinct))
  }
  return statements
}

/**
 * The repeated writes that stay in their place in this unit: a schedule's status where schedules
 * are marked aborted, which reads that status; a schedule's insert where schedules are marked
 * aborted or their groups set, which would miss a schedule inserted after them.
 */
function keptInPlace(recorded: readonly Recorded[]): ReadonlySet<string> {
  const aborts = recorded.some((write) => write.key === 'markSchedulesAborted')
  const setsGroups = recorded.some((write) => write.key === 'setScheduleGroups')
  return new Set([...(aborts ? ['setScheduleStatus'] : []), ...(aborts || setsGroups ? ['insertSchedule'] : [])])
}

function manyOf(many: Map<ManyKey, unknown[][]>, key: ManyKey): unknown[][] {
  let rows = many.get(key)
  if (rows === undefined) {
    rows = []
    many.set(key, rows)
  }
  return rows
}

/** An update's rows, the last of each row it sets only (one UPDATE sets a row once); an insert's rows as they are. */
function lastOfEachRow(rows: readonly unknown[][], keyLength: number | undefined): readonly unknown[][] {
  if (keyLength === undefined) return rows
  const byRow = new Map<string, unknown[]>()
  for (const row of rows) {
    const key = JSON.stringify(row.slice(-keyLength))
    byRow.delete(key)
    byRow.set(key, row)
  }
  return [...byRow.values()]
}
