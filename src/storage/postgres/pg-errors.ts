/** @module PostgreSQL's failures as the store's port names them (see contracts/store.ts). */
import { ToolexecError } from '../../contracts/errors.js'
import { StoreConflictError, StoreFullError } from '../../contracts/store.js'
import { CONNECTION_LOST, type BatchFailure } from './protocol.js'

const UNIQUE_VIOLATION = '23505'
const DISK_FULL = '53100'

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
      return unavailable(failure.message)
    default:
      return new PostgresError(failure.message, failure.code)
  }
}

export function unavailable(reason: string, cause?: unknown): ToolexecError {
  return new ToolexecError('API_ERR_STORAGE_UNAVAILABLE', [reason], { cause })
}

export function isUnavailable(error: unknown): boolean {
  return error instanceof ToolexecError && error.code === 'API_ERR_STORAGE_UNAVAILABLE'
}
