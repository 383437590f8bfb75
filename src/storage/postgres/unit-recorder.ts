/**
 * @module A unit of work as the PostgreSQL store records it: each write becomes its statement,
 * in the order it was made, and nothing reaches the database until the unit is committed whole.
 */
import type { UnitOfWork } from '../../contracts/store.js'
import { unitWrites, type CachedRows, type Write } from '../unit-writes.js'
import { statement, type Statement } from './statements.js'

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
  const touched = { sessions: false, projectRules: false }
  const write: Write = (key, ...values) => void statements.push(statement(key, ...values))
  const cached: CachedRows = {
    session: () => (touched.sessions = true),
    projectRules: () => (touched.projectRules = true),
  }
  const value = build(unitWrites(write, cached))
  return { value, statements, writesSessions: touched.sessions, writesProjectRules: touched.projectRules }
}
