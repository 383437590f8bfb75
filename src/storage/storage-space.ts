/**
 * @module Whether the data directory has room for new work. It has none once a write there
 * failed for want of space (contracts' isStorageFull: a backend's own, ENOSPC, EDQUOT), until
 * its file system again has `minFreeBytes` free; and none while it has less than that.
 * While it has none, new work is refused (507 API_ERR_STORAGE_FULL) and what is already
 * running ends and is recorded as space allows (see event-journal.ts). A write that must
 * happen all the same (a delete) may spend the space reserve (storage-reserve.ts).
 */
import { statfsSync } from 'node:fs'
import { ToolexecError } from '../contracts/errors.js'
import type { StorageRoom } from '../contracts/storage-room.js'
import { isStorageFull } from '../contracts/store.js'
import { RESERVE_BYTES, SpaceReserve } from './storage-reserve.js'

/** Below this much free space in the data directory, new work is refused. */
export const MIN_FREE_BYTES = 16 * 1024 * 1024
/** statfs is cheap, but is asked at most this often. */
const PROBE_INTERVAL_MS = 250

export interface StorageSpaceOptions {
  readonly minFreeBytes?: number
  /** Free bytes of the data directory's file system (statfs by default; tests give their own). */
  readonly freeBytes?: (dir: string) => number
  /** Size of the space reserve kept for a full disk (storage-reserve.ts); 0 for none. */
  readonly reserveBytes?: number
}

function statfsFreeBytes(dir: string): number {
  const stats = statfsSync(dir)
  return stats.bavail * stats.bsize
}

export class StorageSpace implements StorageRoom {
  readonly dataDir: string
  readonly #minFreeBytes: number
  readonly #freeBytes: (dir: string) => number
  readonly reserve: SpaceReserve
  #writeFailed = false
  #probedAt = -Infinity
  #lastFree = Infinity

  constructor(dataDir: string, options: StorageSpaceOptions = {}) {
    this.dataDir = dataDir
    this.#minFreeBytes = options.minFreeBytes ?? MIN_FREE_BYTES
    this.#freeBytes = options.freeBytes ?? statfsFreeBytes
    // Made again only where it leaves room for new work: a reserve must not make the disk full.
    this.reserve = new SpaceReserve(dataDir, options.reserveBytes ?? RESERVE_BYTES, (bytes) => this.#freeNow() >= this.#minFreeBytes + bytes)
  }

  /** A write failed for want of space: no new work until there is room again. */
  markFull(): void {
    this.#writeFailed = true
    this.#probedAt = -Infinity
  }

  /** True while new work must be refused. */
  get full(): boolean {
    const roomy = this.#probe() >= this.#minFreeBytes
    if (roomy) this.#writeFailed = false
    return this.#writeFailed || !roomy
  }

  /** `full`, the file system asked this moment: a call that would start on a disk filled within the probe interval does not. */
  fullNow(): boolean {
    this.#probedAt = -Infinity
    return this.full
  }

  /** Throws API_ERR_STORAGE_FULL while new work must be refused. */
  assertRoom(): void {
    if (this.full) throw this.error()
  }

  /**
   * Runs `write`; when it fails for want of space, gives it the reserve's space and runs it
   * once more. For a write a full disk must not stop and that holds nothing back (a delete).
   */
  async writeWithReserve<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write()
    } catch (error) {
      if (!isStorageFull(error)) throw error
      this.markFull()
      if (!this.reserve.spend()) throw error
      return await write()
    }
  }

  error(cause?: unknown): ToolexecError {
    return new ToolexecError('API_ERR_STORAGE_FULL', [this.dataDir], { cause, context: { dataDir: this.dataDir } })
  }

  /** `error` as API_ERR_STORAGE_FULL when it is a want of space (which it records); else undefined. */
  translate(error: unknown): ToolexecError | undefined {
    if (!isStorageFull(error)) return undefined
    this.markFull()
    return this.error(error)
  }

  #probe(): number {
    const now = performance.now()
    if (now - this.#probedAt < PROBE_INTERVAL_MS) return this.#lastFree
    this.#probedAt = now
    this.#lastFree = this.#freeNow()
    return this.#lastFree
  }

  #freeNow(): number {
    try {
      return this.#freeBytes(this.dataDir)
    } catch {
      // A directory that cannot be asked about is not taken for a full one.
      return Infinity
    }
  }
}
