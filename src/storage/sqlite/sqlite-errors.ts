/**
 * @module SQLite's errors in the port's terms. Every error better-sqlite3 throws is a
 * SqliteError; its prototype answers the port's STORAGE_FAILURE mark from the error's code,
 * so that a want of space or damage is told wherever it is caught, at no cost to a statement
 * that succeeds. A unique key's refusal becomes a StoreConflictError where the port says so.
 */
import Database from 'better-sqlite3'
import { STORAGE_FAILURE, StoreConflictError, type StorageFailure } from '../../contracts/store.js'

// SQLite reports a write the file system refused as one of its I/O errors on write.
const SPACE_CODES = new Set(['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_IOERR_SHMSIZE', 'SQLITE_IOERR_TRUNCATE'])
const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE'])

/** SQLite's codes for a file that is damaged or not a database at all. */
export function isDatabaseCorruption(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
}

function failureOfCode(code: unknown): StorageFailure | undefined {
  if (typeof code !== 'string') return undefined
  if (SPACE_CODES.has(code)) return 'full'
  return isDatabaseCorruption({ code }) ? 'damaged' : undefined
}

Object.defineProperty(Database.SqliteError.prototype, STORAGE_FAILURE, {
  get(this: { code?: unknown }) {
    return failureOfCode(this.code)
  },
  configurable: true,
})

/** A unique key's refusal as the port's StoreConflictError; any other error as it is. */
export function conflictOr(error: unknown): unknown {
  return error instanceof Database.SqliteError && UNIQUE_CODES.has(error.code) ? new StoreConflictError(error.message, { cause: error }) : error
}
