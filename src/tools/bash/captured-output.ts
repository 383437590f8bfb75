/**
 * @module What is kept of a command's output, read back from the file the command wrote:
 * small output whole; larger output as its head and its tail around an omission marker, so
 * memory stays bounded whatever the size.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { ArtifactRef } from '../../contracts/ports.js'
import { decodeHead, decodeTail } from './byte-window.js'

export const DEFAULT_SPILL_BYTES = 256 * 1024
export const DEFAULT_HEAD_BYTES = 16 * 1024
// Covers the bash_output display, which keeps the last 150000 bytes (R38).
export const DEFAULT_TAIL_BYTES = 160 * 1024
export const PROGRESS_TAIL_BYTES = 2 * 1024

export interface CaptureSizes {
  /** Output up to this size is kept whole and becomes no artifact. */
  readonly spillBytes: number
  readonly headBytes: number
  readonly tailBytes: number
}

export const DEFAULT_CAPTURE_SIZES: CaptureSizes = { spillBytes: DEFAULT_SPILL_BYTES, headBytes: DEFAULT_HEAD_BYTES, tailBytes: DEFAULT_TAIL_BYTES }

export interface CapturedOutput {
  /** stdout and stderr together, in the order they were written. */
  readonly totalBytes: number
  /** The whole output; or, when it was too large to keep, its head and its tail around a marker. */
  readonly text: string
  /** When the middle is not in `text`: the head and tail as kept, and the bytes left out. */
  readonly omitted?: { readonly head: string; readonly tail: string; readonly bytes: number } | undefined
  readonly artifact?: ArtifactRef | undefined
  readonly artifactError?: string | undefined
  /** Why the output may be incomplete (its file system ran out of space), when it may be. */
  readonly outputLost?: string | undefined
}

export function omissionMarker(bytes: number): string {
  return `\n\n... [${bytes} bytes omitted] ...\n\n`
}

/**
 * Reads a file that a command is appending to. Reads are synchronous and bounded (a window
 * of at most a few hundred KiB, from the page cache), which keeps a running task's snapshot
 * synchronous; the file itself is never read whole unless it is small.
 */
export class OutputReader {
  readonly #fd: number

  constructor(path: string) {
    this.#fd = openSync(path, 'r')
  }

  size(): number {
    return fstatSync(this.#fd).size
  }

  /** The bytes in [start, end), fewer if the file is shorter. */
  bytes(start: number, end: number): Buffer {
    const buffer = Buffer.allocUnsafe(Math.max(0, end - start))
    let filled = 0
    while (filled < buffer.length) {
      const read = readSync(this.#fd, buffer, filled, buffer.length - filled, start + filled)
      if (read === 0) break
      filled += read
    }
    return buffer.subarray(0, filled)
  }

  /** The last `bytes` of the first `size` bytes, decoded. */
  tail(size: number, bytes: number): string {
    return decodeTail(this.bytes(Math.max(0, size - bytes), size))
  }

  /** What is kept of the first `size` bytes: all of them when small, else head and tail. */
  capture(size: number, sizes: CaptureSizes): CapturedOutput {
    if (size <= sizes.spillBytes) return { totalBytes: size, text: this.bytes(0, size).toString('utf8') }
    const head = decodeHead(this.bytes(0, Math.min(sizes.headBytes, size)))
    const tail = this.tail(size, Math.min(sizes.tailBytes, size - sizes.headBytes))
    const omittedBytes = Math.max(0, size - Buffer.byteLength(head) - Buffer.byteLength(tail))
    return { totalBytes: size, text: head + omissionMarker(omittedBytes) + tail, omitted: { head, tail, bytes: omittedBytes } }
  }

  close(): void {
    closeSync(this.#fd)
  }
}
