/** @module PostgreSQL's failures as the store's port names them (see contracts/store.ts). */
import pg from 'pg'
import { ToolexecError } from '../../contracts/errors.js'
import { LeaseLostError } from '../../contracts/cluster.js'
import { StoreConflictError, StoreFullError } from '../../contracts/store.js'

const UNIQUE_VIOLATION = '23505'
const DISK_FULL = '53100'
// Raised by toolexec_fence (migrations/postgres/012_cluster.sql).
const LEASE_LOST = 'TL001'
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

/** The connection is gone or could not be made: the cause of the API_ERR_STORAGE_UNAVAILABLE it gives. */
export class ConnectionFailure extends Error {
  override readonly name = 'ConnectionFailure'
  constructor(
    message: string,
    /** Why a connection could not be made: the server's SQLSTATE (28P01, 3D000, ...) or the socket's errno (ECONNREFUSED, ENOENT, ...). */
    readonly connectCode: string | undefined,
  ) {
    super(message)
  }
}

/** What a statement's failure means to the store; a failure that is no answer of the server means the connection is gone. */
export function storeError(error: unknown): Error {
  if (error instanceof ToolexecError || error instanceof StoreConflictError || error instanceof LeaseLostError) return error
  if (!(error instanceof pg.DatabaseError) || typeof error.code !== 'string') return lostConnection(error)
  if (endsConnection(error.code)) return lostConnection(error)
  if (error.code === UNIQUE_VIOLATION) return new StoreConflictError(error.message)
  if (error.code === DISK_FULL) return new StoreFullError(error.message)
  if (error.code === LEASE_LOST) return new LeaseLostError(error.message)
  if (UNSTORABLE_TEXT.has(error.code)) return unstorableText(error.message)
  return new PostgresError(error.message, error.code)
}

/** A connection that could not be made. */
export function connectError(error: unknown): ToolexecError {
  return lostConnection(error)
}

function lostConnection(error: unknown): ToolexecError {
  const message = error instanceof Error ? error.message : String(error)
  const code = (error as { code?: unknown } | null)?.code
  return unavailable(message, new ConnectionFailure(message, typeof code === 'string' ? code : undefined))
}

/** Connection exceptions (08...) and the server stopping or refusing (57P01..57P05). */
function endsConnection(sqlState: string): boolean {
  return sqlState.startsWith('08') || sqlState.startsWith('57P')
}

export function unstorableText(reason: string): ToolexecError {
  return new ToolexecError('API_ERR_VALIDATION', [`Text holding a NUL character (U+0000) cannot be stored in this server's PostgreSQL database (${reason}); send it without one`])
}

export function unavailable(reason: string, cause?: unknown): ToolexecError {
  return new ToolexecError('API_ERR_STORAGE_UNAVAILABLE', [reason], { cause })
}

export function isUnavailable(error: unknown): error is ToolexecError {
  return error instanceof ToolexecError && error.code === 'API_ERR_STORAGE_UNAVAILABLE'
}
