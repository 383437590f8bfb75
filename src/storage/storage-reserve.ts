/**
 * @module Space held back for the writes a full disk must not stop: a file of RESERVE_BYTES
 * in the data directory, made at start when there is room for it. A server that stops while
 * a full disk keeps results in memory removes it first, so that they are written before it
 * exits instead of ending `interrupted` at the next start. A delete that finds no space (its
 * transaction appends to the WAL, which cannot always start over) removes it and tries once
 * more; it is then made again as soon as the disk has room for it.
 */
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import path from 'node:path'

export const RESERVE_BYTES = 8 * 1024 * 1024
export const RESERVE_FILE = 'space-reserve'
const CHUNK_BYTES = 1024 * 1024

function reservePath(dataDir: string): string {
  return path.join(dataDir, RESERVE_FILE)
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return -1
  }
}

/** Makes the reserve when it is missing or short; false when the disk has no room for it (nothing is left of it then). */
export function ensureReserve(dataDir: string, bytes = RESERVE_BYTES): boolean {
  const file = reservePath(dataDir)
  if (sizeOf(file) >= bytes) return true
  const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, bytes))
  try {
    // Written, not truncated to size: a sparse file would hold no space back.
    const fd = openSync(file, 'w')
    try {
      for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written))
    } finally {
      closeSync(fd)
    }
    return true
  } catch {
    rmSync(file, { force: true })
    return false
  }
}

/** Gives the reserve's space back; false when there was none. */
export function releaseReserve(dataDir: string): boolean {
  const file = reservePath(dataDir)
  if (sizeOf(file) <= 0) return false
  rmSync(file, { force: true })
  return true
}

/** How often a spent reserve checks whether the disk has room to make it again. */
const REMAKE_INTERVAL_MS = 1_000

/** The reserve of one data directory: made, spent on a full disk and made again, released at a stop. */
export class SpaceReserve {
  readonly #dataDir: string
  readonly #bytes: number
  readonly #hasRoom: (bytes: number) => boolean
  #remakeTimer: NodeJS.Timeout | undefined = undefined
  #closed = false

  /** `hasRoom(bytes)`: whether the disk can give `bytes` to the reserve and still take new work. */
  constructor(dataDir: string, bytes: number, hasRoom: (bytes: number) => boolean) {
    this.#dataDir = dataDir
    this.#bytes = bytes
    this.#hasRoom = hasRoom
  }

  /** Makes it when missing or short (at start); false when the disk has no room for it. */
  make(): boolean {
    return this.#bytes <= 0 || ensureReserve(this.#dataDir, this.#bytes)
  }

  /** Gives its space to a write a full disk must not stop, and makes it again once there is room; false when there was none. */
  spend(): boolean {
    if (this.#closed || this.#bytes <= 0 || !releaseReserve(this.#dataDir)) return false
    this.#remakeWhenRoom()
    return true
  }

  /** Gives its space back for good: the server stops. */
  release(): boolean {
    this.close()
    return this.#bytes > 0 && releaseReserve(this.#dataDir)
  }

  /** Stops making it again: nothing is written in the data directory after the server stopped. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#remakeTimer)
    this.#remakeTimer = undefined
  }

  #remakeWhenRoom(): void {
    if (this.#remakeTimer !== undefined) return
    this.#remakeTimer = setTimeout(() => {
      this.#remakeTimer = undefined
      if (this.#closed) return
      if (!this.#hasRoom(this.#bytes) || !this.make()) this.#remakeWhenRoom()
    }, REMAKE_INTERVAL_MS)
    this.#remakeTimer.unref()
  }
}
