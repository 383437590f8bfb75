/**
 * @module Why the PostgreSQL store could not open, as the one line `npm start` prints (exit 2):
 * each failure an operator meets first names what to fix. At run time the same failures stay
 * API_ERR_STORAGE_UNAVAILABLE (503): the database may come back.
 */
import { StartupError, type ErrorCode, type ToolexecError } from '../../contracts/errors.js'
import { ConnectionFailure } from './pg-errors.js'

/** SQLSTATEs and socket errnos of a connection that could not be made, by what the operator must fix. */
const CONNECT_FAILURES: Readonly<Record<string, ErrorCode>> = {
  // invalid_password, invalid_authorization_specification (no pg_hba.conf entry, no such role)
  '28P01': 'STORE_ERR_DB_AUTH',
  '28000': 'STORE_ERR_DB_AUTH',
  // invalid_catalog_name
  '3D000': 'STORE_ERR_DB_MISSING',
  ECONNREFUSED: 'STORE_ERR_DB_NO_SERVER',
  ENOENT: 'STORE_ERR_DB_NO_SERVER',
  ENOTFOUND: 'STORE_ERR_DB_NO_SERVER',
  EHOSTUNREACH: 'STORE_ERR_DB_NO_SERVER',
}

/** `shown` is the URL with its secrets masked; `error` the API_ERR_STORAGE_UNAVAILABLE the open failed with. */
export function startupFailure(shown: string, error: ToolexecError): StartupError {
  const cause = error.cause
  const reason = cause instanceof Error ? cause.message : error.message
  const connectCode = cause instanceof ConnectionFailure ? cause.connectCode : undefined
  const code = (connectCode !== undefined ? CONNECT_FAILURES[connectCode] : undefined) ?? 'STORE_ERR_DB_UNREACHABLE'
  return new StartupError(code, [shown, reason], { cause: error })
}
