/**
 * @module The last few kilobytes a child wrote to stderr, for error messages. Reading the pipe
 * also keeps a chatty server from blocking on a full one.
 */
import type { Stream } from 'node:stream'

const TAIL_BYTES = 2048
const MESSAGE_CHARS = 500

export class StderrTail {
  #chunks: Buffer[] = []
  #bytes = 0

  constructor(stream: Stream | null) {
    stream?.on('data', (chunk: Buffer | string) => this.#append(typeof chunk === 'string' ? Buffer.from(chunk) : chunk))
  }

  /** The tail as text; a multi-byte character cut at the start decodes as U+FFFD. */
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8')
  }

  /** `` (stderr: ...)`` with the end of the tail on one line, or nothing when it is empty. */
  suffix(): string {
    const folded = this.text().replace(/\s+/g, ' ').trim()
    if (folded === '') return ''
    const chars = Array.from(folded)
    const clipped = chars.length > MESSAGE_CHARS ? `...${chars.slice(-MESSAGE_CHARS).join('')}` : folded
    return ` (stderr: ${clipped})`
  }

  #append(chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#bytes += chunk.length
    while (this.#chunks.length > 1 && this.#bytes - (this.#chunks[0]?.length ?? 0) >= TAIL_BYTES) {
      this.#bytes -= this.#chunks.shift()?.length ?? 0
    }
    const first = this.#chunks[0]
    if (first !== undefined && this.#bytes > TAIL_BYTES) {
      this.#chunks[0] = first.subarray(this.#bytes - TAIL_BYTES)
      this.#bytes = TAIL_BYTES
    }
  }
}
