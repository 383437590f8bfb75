/**
 * @module Transactions on the worker's one connection, with as few round trips as keep every
 * error where it belongs. Inside a unit of work, writes wait in a buffer and go with the next
 * read, at the end of a savepoint (so that a failing write fails its own savepoint), or at
 * COMMIT. A failure poisons the level its statement belongs to: inner levels unwind without
 * touching the database, and that level rolls back to its start and throws.
 */
import { BridgeTimeoutError, type PgBridge } from './pg-bridge.js'
import { isConnectionFailure, storeError } from './pg-errors.js'
import { CONNECTION_LOST, type Statement, type StatementResult } from './protocol.js'

/** How long a statement may take before the database counts as gone. */
export const DEFAULT_TIMEOUT_MS = 30_000

interface Pending {
  readonly statement: Statement
  /** The unit of work (1) or savepoint (2...) it belongs to; 0 outside any. */
  readonly depth: number
}

interface Failure {
  readonly error: Error
  readonly depth: number
}

const BEGIN: Statement = { text: 'BEGIN' }
const COMMIT: Statement = { text: 'COMMIT' }
const ROLLBACK: Statement = { text: 'ROLLBACK' }

export class UnitOfWork {
  readonly #bridge: PgBridge
  readonly #timeoutMs: number
  #depth = 0
  #pending: Pending[] = []
  /** Whether the open transaction's BEGIN has reached the database. */
  #begun = false
  #failure: Failure | undefined
  /** Why the last batch could not reach the database; cleared by the next that does. */
  #lost: string | undefined

  constructor(bridge: PgBridge, timeoutMs = DEFAULT_TIMEOUT_MS) {
    this.#bridge = bridge
    this.#timeoutMs = timeoutMs
  }

  /** False while a failure unwinds the levels above the one it ended. */
  get inTransaction(): boolean {
    return this.#depth > 0 && this.#failure === undefined
  }

  /** Whether a unit of work is open, failing or not. */
  get open(): boolean {
    return this.#depth > 0
  }

  get lost(): string | undefined {
    return this.#lost
  }

  transaction<T>(fn: () => T): T {
    this.#throwFailure()
    const depth = ++this.#depth
    const opening: Pending = { statement: depth === 1 ? BEGIN : { text: `SAVEPOINT s${depth}` }, depth }
    this.#pending.push(opening)
    try {
      const value = fn()
      this.#throwFailure()
      this.#pending.push({ statement: depth === 1 ? COMMIT : { text: `RELEASE SAVEPOINT s${depth}` }, depth })
      this.#send(undefined)
      this.#end(depth)
      return value
    } catch (error) {
      this.#undo(depth, opening)
      throw error
    }
  }

  /** A write: sent now outside a unit of work, else with the next batch. */
  write(statement: Statement): void {
    if (this.#depth === 0) this.#send(statement)
    else this.#pending.push({ statement, depth: this.#depth })
  }

  /** A read, or a write whose failure its caller handles at once: sent now with what waits. */
  query(statement: Statement): StatementResult {
    this.#throwFailure()
    return this.#send(statement)
  }

  #end(depth: number): void {
    this.#depth = depth - 1
    if (depth === 1) this.#begun = false
  }

  /** Ends level `depth` after `fn` or its commit threw; the database is rolled back to where the level began. */
  #undo(depth: number, opening: Pending): void {
    const failure = this.#failure
    const levelUnsent = this.#pending.includes(opening)
    const start = this.#pending.findIndex((pending) => pending.depth >= depth)
    if (start >= 0) this.#pending.length = start
    this.#end(depth)
    if (failure !== undefined && failure.depth < depth) return
    this.#failure = undefined
    // A level none of whose statements reached the database leaves nothing to roll back.
    if (levelUnsent) return
    if (depth > 1) {
      this.#pending.push({ statement: { text: `ROLLBACK TO SAVEPOINT s${depth}` }, depth: depth - 1 }, { statement: { text: `RELEASE SAVEPOINT s${depth}` }, depth: depth - 1 })
      return
    }
    this.#pending.length = 0
    try {
      this.#bridge.run([ROLLBACK], false, this.#timeoutMs)
    } catch {
      // A connection that is gone or stuck has no transaction left to keep; the worker rolls it back in order.
    }
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure.error
  }

  #send(last: Statement | undefined): StatementResult {
    const batch = this.#pending
    this.#pending = []
    if (last !== undefined) batch.push({ statement: last, depth: this.#depth })
    if (batch.length === 0) return { rows: [], rowCount: 0 }
    const mayReconnect = this.#depth === 0 || !this.#begun
    if (this.#depth > 0) this.#begun = true
    const reply = this.#run(
      batch.map((pending) => pending.statement),
      mayReconnect,
    )
    if (reply.failure === undefined) {
      this.#lost = undefined
      return reply.results[reply.results.length - 1] ?? { rows: [], rowCount: 0 }
    }
    const error = storeError(reply.failure)
    const lost = isConnectionFailure(reply.failure)
    if (lost) this.#lost = reply.failure.message
    const depth = lost ? 1 : (batch[reply.failure.index]?.depth ?? this.#depth)
    if (this.#depth > 0 && depth > 0) this.#failure = { error, depth }
    throw error
  }

  #run(statements: Statement[], mayReconnect: boolean): ReturnType<PgBridge['run']> {
    try {
      return this.#bridge.run(statements, mayReconnect, this.#timeoutMs)
    } catch (error) {
      if (!(error instanceof BridgeTimeoutError)) throw error
      return { id: 0, results: [], failure: { message: error.message, code: CONNECTION_LOST, index: 0 } }
    }
  }
}
