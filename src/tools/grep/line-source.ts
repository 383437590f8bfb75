/**
 * @module The text of a chunk as the content printer reads it: a decoded string (regular
 * expressions), or the raw bytes themselves (literal patterns, so a file is never decoded
 * beyond the lines printed). Offsets are in the source's own units.
 */

export interface LineSource {
  readonly length: number
  /** Index of the first newline at or after `from`, or -1. */
  newlineAt(from: number): number
  /** Index of the last newline before `before`, or -1. */
  newlineBefore(before: number): number
  text(start: number, end: number): string
}

const NEWLINE = 10

export class StringSource implements LineSource {
  readonly #text: string

  constructor(text: string) {
    this.#text = text
  }

  get length(): number {
    return this.#text.length
  }

  newlineAt(from: number): number {
    return this.#text.indexOf('\n', from)
  }

  newlineBefore(before: number): number {
    return before <= 0 ? -1 : this.#text.lastIndexOf('\n', before - 1)
  }

  text(start: number, end: number): string {
    return this.#text.slice(start, end)
  }
}

export class ByteSource implements LineSource {
  readonly #bytes: Buffer

  constructor(bytes: Buffer) {
    this.#bytes = bytes
  }

  get length(): number {
    return this.#bytes.length
  }

  newlineAt(from: number): number {
    return from >= this.#bytes.length ? -1 : this.#bytes.indexOf(NEWLINE, from)
  }

  // Buffer.lastIndexOf counts a negative offset from the end, so 0 is handled here.
  newlineBefore(before: number): number {
    return before <= 0 ? -1 : this.#bytes.lastIndexOf(NEWLINE, before - 1)
  }

  text(start: number, end: number): string {
    return this.#bytes.toString('utf8', start, end)
  }
}
