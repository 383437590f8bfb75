/**
 * @module Space held back for a stop on a full disk: a file of RESERVE_BYTES in the data
 * directory, made at start when there is room for it. A server that stops while a full disk
 * keeps results in memory removes it first, so that they are written before it exits
 * instead of ending `interrupted` at the next start.
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
