/** @module The messages between the store's thread and the PostgreSQL worker (see pg-worker.ts, pg-bridge.ts). */
import type { MessagePort } from 'node:worker_threads'

/** One statement; `name` makes the worker's connection prepare it once. */
export interface Statement {
  readonly name?: string | undefined
  readonly text: string
  readonly values?: readonly unknown[] | undefined
}

export interface BatchRequest {
  readonly id: number
  readonly statements: readonly Statement[]
  /** Whether a lost connection may be replaced before the batch runs: no transaction of it is open. */
  readonly mayReconnect: boolean
  /** Ends the connection instead (its owner lock with it) and replies once it has ended. */
  readonly end?: boolean
}

export interface StatementResult {
  readonly rows: Record<string, unknown>[]
  readonly rowCount: number
}

export interface BatchFailure {
  readonly message: string
  /** PostgreSQL's SQLSTATE, CONNECTION_LOST when the connection is gone, DATABASE_IN_USE when another server holds the database. */
  readonly code: string
  /** Which statement of the batch failed; the ones after it did not run. */
  readonly index: number
  /** Why a connection could not be made: the server's SQLSTATE (28P01, 3D000, ...) or the socket's errno (ECONNREFUSED, ENOENT, ...). */
  readonly connectCode?: string | undefined
}

export interface BatchReply {
  readonly id: number
  readonly results: StatementResult[]
  readonly failure?: BatchFailure | undefined
}

export interface WorkerData {
  readonly url: string
  /** Int32 slot 0: the id of the last reply posted, which the waiting thread watches. */
  readonly signal: SharedArrayBuffer
  readonly port: MessagePort
}

export const CONNECTION_LOST = 'CONNECTION'
/** The database is held by another toolexec server (its owner lock, pg-worker.ts). */
export const DATABASE_IN_USE = 'IN_USE'
