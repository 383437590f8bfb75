/**
 * @module What a worker's scanners write for one batch of files, recorded so that the main
 * thread can add it to the search's GrepOutput exactly as if the scanners had written there
 * (GrepOutput.merge). Entries are UTF-8 bytes back to back, each ending with a newline, so a
 * batch travels as one transferred buffer and is usually copied into the output whole.
 *
 * The recorder keeps at most `room` entries: what the output still had room for when the
 * batch was sent. The output only fills up meanwhile, so an entry the recorder leaves out
 * would have been left out there too.
 */
import type { ScanSink } from './file-scanners.js'

export const ENTRY_LINE = 0
export const ENTRY_SEPARATOR = 1
/** A file's entry in files_with_matches or count mode, with its number of matching lines. */
export const ENTRY_FILE = 2

export interface RecordedBatch {
  readonly bytes: Uint8Array
  /** End offset in `bytes` of each entry (after its newline). */
  readonly ends: Uint32Array
  readonly kinds: Uint8Array
  readonly counts: Uint32Array
  /** Entries that are not separators. */
  readonly lines: number
  /** Entries counted but not kept, and the files and matching lines behind them. */
  readonly leftOut: number
  readonly leftOutFiles: number
  readonly leftOutMatchingLines: number
  /** head_limit was reached: the search stops. */
  readonly stopped: boolean
}

const INITIAL_BYTES = 64 * 1024
const NEWLINE = 10

export class BatchRecorder implements ScanSink {
  #room = 0
  #stopAtCap = false
  #buffer = Buffer.allocUnsafe(INITIAL_BYTES)
  #length = 0
  #ends: number[] = []
  #kinds: number[] = []
  #counts: number[] = []
  #lines = 0
  #leftOut = 0
  #leftOutFiles = 0
  #leftOutMatchingLines = 0
  #stopped = false

  /** Starts a batch. */
  reset(room: number, stopAtCap: boolean): void {
    this.#room = room
    this.#stopAtCap = stopAtCap
    this.#length = 0
    this.#ends = []
    this.#kinds = []
    this.#counts = []
    this.#lines = 0
    this.#leftOut = 0
    this.#leftOutFiles = 0
    this.#leftOutMatchingLines = 0
    this.#stopped = false
  }

  /** Whether anything was printed before is known only on the main thread, which drops a leading separator if not. */
  get printedAny(): boolean {
    return true
  }

  get stopped(): boolean {
    return this.#stopped
  }

  line(text: string): boolean {
    return this.#entry(text, ENTRY_LINE, 0)
  }

  fileEntry(text: string, matchingLines: number): boolean {
    return this.#entry(text, ENTRY_FILE, matchingLines)
  }

  separator(): void {
    if (this.#lines < this.#room) this.#write('--', ENTRY_SEPARATOR, 0)
  }

  /** The batch as recorded, in buffers of its own (to be transferred). */
  finish(): RecordedBatch {
    return {
      bytes: new Uint8Array(this.#buffer.subarray(0, this.#length)),
      ends: Uint32Array.from(this.#ends),
      kinds: Uint8Array.from(this.#kinds),
      counts: Uint32Array.from(this.#counts),
      lines: this.#lines,
      leftOut: this.#leftOut,
      leftOutFiles: this.#leftOutFiles,
      leftOutMatchingLines: this.#leftOutMatchingLines,
      stopped: this.#stopped,
    }
  }

  #entry(text: string, kind: number, matchingLines: number): boolean {
    if (this.#lines < this.#room) {
      this.#write(text, kind, matchingLines)
      this.#lines++
      return true
    }
    if (this.#stopAtCap) {
      this.#stopped = true
      return false
    }
    this.#leftOut++
    if (kind === ENTRY_FILE) {
      this.#leftOutFiles++
      this.#leftOutMatchingLines += matchingLines
    }
    return true
  }

  #write(text: string, kind: number, matchingLines: number): void {
    const needed = this.#length + Buffer.byteLength(text, 'utf8') + 1
    if (needed > this.#buffer.length) this.#grow(needed)
    this.#length += this.#buffer.write(text, this.#length, 'utf8')
    this.#buffer[this.#length++] = NEWLINE
    this.#ends.push(this.#length)
    this.#kinds.push(kind)
    this.#counts.push(matchingLines)
  }

  #grow(needed: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2))
    this.#buffer.copy(bigger, 0, 0, this.#length)
    this.#buffer = bigger
  }
}
