/**
 * @module A unit of work as the PostgreSQL store records it: each write becomes its statement,
 * in the order it was made, and nothing reaches the database until the unit is committed whole.
 * The writes it may make many of (calls inserted, started and completed, events) go last, each
 * kind as one statement for all its rows (statements.ts), in that order: PostgreSQL parses and
 * plans one statement instead of one per row. Nothing else in a unit reads those rows, and a
 * call is inserted, started and completed in different units, so the unit's outcome is the same.
 */
import type { UnitOfWork } from '../../contracts/store.js'
import { unitWrites, type CachedRows, type Write } from '../unit-writes.js'
import { MANY_KEYS, statement, statementOfMany, type ManyKey, type Statement } from './statements.js'

export interface RecordedUnit<T> {
  readonly value: T
  readonly statements: readonly Statement[]
  /** Whether it writes rows that the store's caches keep. */
  readonly writesSessions: boolean
  readonly writesProjectRules: boolean
}

/** Runs `build` against writers that only record; what `build` throws is thrown here and nothing is recorded. */
export function recordUnit<T>(build: (unit: UnitOfWork) => T): RecordedUnit<T> {
  const statements: Statement[] = []
  const many = new Map<ManyKey, unknown[][]>()
  const touched = { sessions: false, projectRules: false }
  const write: Write = (key, ...values) => {
    if (!MANY_KEYS.has(key)) statements.push(statement(key, ...values))
    else manyOf(many, key as ManyKey).push(values)
  }
  const cached: CachedRows = {
    session: () => (touched.sessions = true),
    projectRules: () => (touched.projectRules = true),
  }
  const value = build(unitWrites(write, cached))
  for (const key of MANY_KEYS) {
    const rows = many.get(key as ManyKey)
    if (rows === undefined) continue
    const distinct = key === 'insertCall' || key === 'insertEvent' ? rows : lastOfEachRow(rows)
    statements.push(distinct.length === 1 ? statement(key as ManyKey, ...(distinct[0] as unknown[])) : statementOfMany(key as ManyKey, distinct))
  }
  return { value, statements, writesSessions: touched.sessions, writesProjectRules: touched.projectRules }
}

function manyOf(many: Map<ManyKey, unknown[][]>, key: ManyKey): unknown[][] {
  let rows = many.get(key)
  if (rows === undefined) {
    rows = []
    many.set(key, rows)
  }
  return rows
}

/** An update's rows, the last of each call (its session and id, the last two values) only: one UPDATE sets a row once. */
function lastOfEachRow(rows: readonly unknown[][]): unknown[][] {
  const byCall = new Map<string, unknown[]>()
  for (const row of rows) {
    const key = JSON.stringify(row.slice(-2))
    byCall.delete(key)
    byCall.set(key, row)
  }
  return [...byCall.values()]
}
