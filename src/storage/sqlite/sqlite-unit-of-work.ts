/**
 * @module The store's writes on SQLite, by role: a unit of work whose writers run their
 * statements at once, inside the transaction SqliteStore.commit holds open while its build runs.
 */
import type Database from 'better-sqlite3'
import type { UnitOfWork } from '../../contracts/store.js'
import { unitWrites, type Write } from '../unit-writes.js'
import type { CommittedCache } from './committed-cache.js'
import { conflictOr } from './sqlite-errors.js'
import type { Statements } from './statements.js'

/**
 * Runs a unit's statements, only while its build runs: a writer kept and called later would
 * write outside any transaction. The first statement that fails fails the whole unit, even
 * when the build caught its error and went on.
 */
class UnitStatements {
  #open = false
  #failure: { readonly error: unknown } | undefined = undefined

  get open(): boolean {
    return this.#open
  }

  run(statement: Database.Statement, ...params: unknown[]): void {
    if (!this.#open) throw new Error('a unit of work writes only while its build runs: record every write inside the function given to commit')
    try {
      statement.run(...params)
    } catch (error) {
      const mapped = conflictOr(error)
      this.#failure ??= { error: mapped }
      throw mapped
    }
  }

  during<T>(work: () => T): T {
    this.#open = true
    this.#failure = undefined
    try {
      const value = work()
      this.#throwFailure()
      return value
    } finally {
      this.#open = false
    }
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure.error
  }
}

/** One per store, reused by every commit: its writers work only while a build runs. */
export class SqliteUnitOfWork {
  readonly #statements = new UnitStatements()
  readonly #writes: UnitOfWork

  constructor(statements: Statements, cache: CommittedCache) {
    const write: Write = (key, ...values) => this.#statements.run(statements[key], ...values)
    this.#writes = unitWrites(write, { session: (id) => cache.forgetSession(id), projectRules: () => cache.forgetProjectRules() })
  }

  /** Whether a build is running now. */
  get building(): boolean {
    return this.#statements.open
  }

  /** Runs `build` with this unit's writers; the caller holds the transaction open around it. */
  build<T>(build: (unit: UnitOfWork) => T): T {
    return this.#statements.during(() => build(this.#writes))
  }
}
