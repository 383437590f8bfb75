/** @module Whether the data directory has room for new work: the port the sessions and the edge see of storage/storage-space.ts. */
import type { ToolexecError } from './errors.js'

export interface StorageRoom {
  readonly dataDir: string
  /** `full` as the file system says this moment, not a recent answer: for the moment a call would start. */
  fullNow(): boolean
  /** A write failed for want of space: no new work until there is room again. */
  markFull(): void
  /** Throws API_ERR_STORAGE_FULL while new work must be refused. */
  assertRoom(): void
  /** API_ERR_STORAGE_FULL for the data directory, with `cause`. */
  error(cause?: unknown): ToolexecError
  /** `error` as API_ERR_STORAGE_FULL when it is a want of space (which it records); else undefined. */
  translate(error: unknown): ToolexecError | undefined
  /** Runs `write`; when it fails for want of space, gives it the space reserve and runs it once more. */
  writeWithReserve<T>(write: () => Promise<T>): Promise<T>
}
