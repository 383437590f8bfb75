/**
 * @module Reads an open file into one reused buffer and hands it over in chunks of whole
 * lines, so a file of any size is searched in bounded memory. A file with a NUL byte in its
 * first 8 KiB is binary and not handed over at all.
 */
import { readSync } from 'node:fs'
import { SNIFF_BYTES } from '../read/file-kind.js'

const NEWLINE = 10
const CHUNK_BYTES = 1024 * 1024
// A line longer than this is split: memory stays bounded on a file with no line breaks.
const MAX_CHUNK_BYTES = 16 * 1024 * 1024
const WHOLE_SNIFF_BYTES = 64 * 1024

/** Receives the file's text chunk by chunk. */
export interface ChunkConsumer {
  /** Returns false to stop reading the file. */
  chunk(bytes: Buffer, final: boolean): boolean
}

/** A NUL byte in the first SNIFF_BYTES. A small chunk is scanned whole: cutting it costs more than scanning its tail. */
function isBinary(firstChunk: Buffer): boolean {
  const head = firstChunk.length > WHOLE_SNIFF_BYTES ? firstChunk.subarray(0, SNIFF_BYTES) : firstChunk
  const nul = head.indexOf(0)
  return nul !== -1 && nul < SNIFF_BYTES
}

export class ChunkReader {
  #buffer = Buffer.allocUnsafe(CHUNK_BYTES)

  /**
   * Reads an open file from the start and hands over chunks of whole lines. A short read
   * is taken as the end of a regular file, which saves a read per file. Returns false for a
   * binary file.
   */
  read(fd: number, consumer: ChunkConsumer): boolean {
    let filled = 0
    let first = true
    for (;;) {
      const room = this.#buffer.length - filled
      const end = filled + readSync(fd, this.#buffer, filled, room, null)
      const final = end - filled < room
      const cut = final ? end : this.#buffer.lastIndexOf(NEWLINE, end - 1) + 1
      if (cut === 0 && this.#grow()) {
        filled = end
        continue
      }
      const chunk = this.#buffer.subarray(0, cut === 0 ? end : cut)
      if (first && isBinary(chunk)) return false
      first = false
      if (!consumer.chunk(chunk, final) || final) return true
      filled = end - chunk.length
      this.#buffer.copy(this.#buffer, 0, chunk.length, end)
    }
  }

  /** Doubles the buffer for a long line, keeping its content; false at the limit. */
  #grow(): boolean {
    if (this.#buffer.length >= MAX_CHUNK_BYTES) return false
    const bigger = Buffer.allocUnsafe(this.#buffer.length * 2)
    this.#buffer.copy(bigger)
    this.#buffer = bigger
    return true
  }
}
