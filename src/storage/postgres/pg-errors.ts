/** @module PostgreSQL's failures as the store's port names them (see contracts/store.ts). */
import { ToolexecError } from '../../contracts/errors.js'
import { StoreConflictError, StoreFullError } from '../../contracts/store.js'
import { CONNECTION_LOST, DATABASE_IN_USE, type BatchFailure } from './protocol.js'

const UNIQUE_VIOLATION = '23505'
const DISK_FULL = '53100'
// invalid byte sequence / untranslatable character: in practice a NUL (U+0000), which a text column cannot hold.
const UNSTORABLE_TEXT = new Set(['22021', '22P05'])

/** Any other failure keeps PostgreSQL's SQLSTATE as its code. */
class PostgresError extends Error {
  override readonly name = 'PostgresError'
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message)
  }
}

export function storeError(failure: BatchFailure): Error {
  switch (failure.code) {
    case UNIQUE_VIOLATION:
      return new StoreConflictError(failure.message)
    case DISK_FULL:
      return new StoreFullError(failure.message)
    case CONNECTION_LOST:
      return unavailable(failure.message, new ConnectionFailure(failure.message, failure.connectCode))
    case DATABASE_IN_USE:
      return unavailable(failure.message, new DatabaseInUseError(failure.message))
    default:
      if (UNSTORABLE_TEXT.has(failure.code))
        return new ToolexecError('API_ERR_VALIDATION', [`Text holding a NUL character (U+0000) cannot be stored in this server's PostgreSQL database (${failure.message}); send it without one`])
      return new PostgresError(failure.message, failure.code)
  }
}

/** Another toolexec server holds the database: the cause of the API_ERR_STORAGE_UNAVAILABLE it gives. */
export class DatabaseInUseError extends Error {
  override readonly name = 'DatabaseInUseError'
}

/** The connection is gone or could not be made: the cause of the API_ERR_STORAGE_UNAVAILABLE it gives. */
export class ConnectionFailure extends Error {
  override readonly name = 'ConnectionFailure'
  constructor(
    message: string,
    /** See BatchFailure.connectCode. */
    readonly connectCode: string | undefined,
  ) {
    super(message)
  }
}

/** True for a failure after which the connection must be made again before the next unit of work. */
export function isConnectionFailure(failure: BatchFailure): boolean {
  return failure.code === CONNECTION_LOST || failure.code === DATABASE_IN_USE
}

export function unavailable(reason: string, cause?: unknown): ToolexecError {
  return new ToolexecError('API_ERR_STORAGE_UNAVAILABLE', [reason], { cause })
}

export function isUnavailable(error: unknown): boolean {
  return error instanceof ToolexecError && error.code === 'API_ERR_STORAGE_UNAVAILABLE'
}
