/**
 * @module Bounded windows over a byte stream: its first and its last bytes, whatever its
 * size, decoded as UTF-8 without a character cut in two at the window's edge.
 */

// Many tiny chunks are merged now and then so that trimming stays cheap.
const MAX_CHUNKS = 256

/** The last `capacity` bytes written. Holds the chunks themselves: no copy per write. */
export class ByteTail {
  readonly #capacity: number
  #chunks: Buffer[] = []
  #bytes = 0

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#bytes += chunk.length
    let first = this.#chunks[0]
    while (first !== undefined && this.#chunks.length > 1 && this.#bytes - first.length >= this.#capacity) {
      this.#chunks.shift()
      this.#bytes -= first.length
      first = this.#chunks[0]
    }
    if (this.#chunks.length > MAX_CHUNKS) {
      const kept = Buffer.from(this.#kept())
      this.#chunks = [kept]
      this.#bytes = kept.length
    }
  }

  /** A copy of the kept bytes, at most `capacity`. */
  bytes(): Buffer {
    return Buffer.from(this.#kept())
  }

  #kept(): Buffer {
    const all = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks)
    return all.subarray(Math.max(0, all.length - this.#capacity))
  }

  text(): string {
    return decodeTail(this.bytes())
  }
}

/** The first `capacity` bytes written, copied so that the large chunks they came in are freed. */
export class ByteHead {
  readonly #capacity: number
  readonly #chunks: Buffer[] = []
  #bytes = 0

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  push(chunk: Buffer): void {
    const room = this.#capacity - this.#bytes
    if (room <= 0) return
    const kept = Buffer.from(chunk.subarray(0, room))
    this.#chunks.push(kept)
    this.#bytes += kept.length
  }

  get size(): number {
    return this.#bytes
  }

  text(): string {
    return decodeHead(Buffer.concat(this.#chunks))
  }
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80
}

/** Decodes bytes that may start inside a character: its stray continuation bytes are dropped. */
export function decodeTail(bytes: Buffer): string {
  let start = 0
  while (start < 3 && isContinuation(bytes[start])) start++
  return bytes.toString('utf8', start)
}

/** Decodes bytes that may end inside a character: the incomplete character is dropped. */
export function decodeHead(bytes: Buffer): string {
  let lead = bytes.length - 1
  while (lead > bytes.length - 4 && lead > 0 && isContinuation(bytes[lead])) lead--
  const byte = bytes[lead] ?? 0
  const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
  const end = bytes.length - lead < needed ? lead : bytes.length
  return bytes.toString('utf8', 0, end)
}
