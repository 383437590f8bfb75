/**
 * @module Where Grep's results collect: entries (output lines, file paths or `path:count`)
 * up to a cap. With head_limit the search stops at the cap; without it the search goes on
 * only counting, so the note can say how many entries were left out.
 *
 * Entries are copied into a byte buffer at once: a line sliced from a file's text would
 * otherwise keep that whole text alive until the search ends (V8 sliced strings), which
 * made content mode spend most of its time in the garbage collector.
 */
import type { RecordedBatch } from './batch-recorder.js'
import { ENTRY_FILE, ENTRY_SEPARATOR } from './batch-recorder.js'
import type { OutputMode } from './output-mode.js'

const INITIAL_BYTES = 64 * 1024
const NEWLINE = 10

class ByteWriter {
  #buffer = Buffer.allocUnsafe(INITIAL_BYTES)
  #length = 0

  get length(): number {
    return this.#length
  }

  /** Appends `text` and a newline. */
  writeLine(text: string): void {
    const needed = this.#length + Buffer.byteLength(text, 'utf8') + 1
    if (needed > this.#buffer.length) this.#grow(needed)
    this.#length += this.#buffer.write(text, this.#length, 'utf8')
    this.#buffer[this.#length++] = NEWLINE
  }

  /** Appends bytes that already end with a newline. */
  writeBytes(bytes: Uint8Array): void {
    const needed = this.#length + bytes.length
    if (needed > this.#buffer.length) this.#grow(needed)
    this.#buffer.set(bytes, this.#length)
    this.#length = needed
  }

  /** The text written, without the final newline. */
  toString(): string {
    return this.#buffer.toString('utf8', 0, Math.max(0, this.#length - 1))
  }

  #grow(needed: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2))
    this.#buffer.copy(bigger, 0, 0, this.#length)
    this.#buffer = bigger
  }
}

export class GrepOutput {
  readonly cap: number
  readonly stopAtCap: boolean
  /** Entries kept (separators not counted). */
  kept = 0
  leftOut = 0
  /** head_limit cut the search short: there is more than was shown. */
  more = false
  files = 0
  matchingLines = 0
  readonly #writer = new ByteWriter()

  constructor(cap: number, stopAtCap: boolean) {
    this.cap = cap
    this.stopAtCap = stopAtCap
  }

  get printedAny(): boolean {
    return this.#writer.length > 0
  }

  get stopped(): boolean {
    return this.more
  }

  get text(): string {
    return this.#writer.toString()
  }

  line(text: string): boolean {
    if (this.kept < this.cap) {
      this.#writer.writeLine(text)
      this.kept++
      return true
    }
    if (this.stopAtCap) {
      this.more = true
      return false
    }
    this.leftOut++
    return true
  }

  separator(): void {
    if (this.kept < this.cap) this.#writer.writeLine('--')
  }

  /**
   * Adds what a worker recorded for a batch of files, exactly as if its scanners had written
   * here: a batch that fits below the cap is copied whole, one that reaches it entry by entry.
   */
  merge(batch: RecordedBatch): void {
    if (this.kept + batch.lines < this.cap) this.#appendWhole(batch)
    else this.#replay(batch)
    this.leftOut += batch.leftOut
    this.files += batch.leftOutFiles
    this.matchingLines += batch.leftOutMatchingLines
    if (batch.stopped) this.more = true
  }

  #appendWhole(batch: RecordedBatch): void {
    const { kinds, ends, counts } = batch
    // A file's first group is preceded by `--` only when something was printed before it.
    const skipFirst = kinds[0] === ENTRY_SEPARATOR && !this.printedAny
    this.#writer.writeBytes(skipFirst ? batch.bytes.subarray(ends[0]) : batch.bytes)
    this.kept += batch.lines
    for (let index = 0; index < kinds.length; index++) {
      if (kinds[index] !== ENTRY_FILE) continue
      this.files++
      this.matchingLines += counts[index] as number
    }
  }

  #replay(batch: RecordedBatch): void {
    const { kinds, ends, counts, bytes } = batch
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
    for (let index = 0, start = 0; index < kinds.length; start = ends[index++] as number) {
      const kind = kinds[index]
      if (kind === ENTRY_SEPARATOR) {
        if (this.printedAny) this.separator()
        continue
      }
      // Each entry ends with its newline.
      if (!this.line(text.toString('utf8', start, (ends[index] as number) - 1))) return
      if (kind !== ENTRY_FILE) continue
      this.files++
      this.matchingLines += counts[index] as number
    }
  }
}

const UNITS: Readonly<Record<OutputMode, string>> = {
  content: 'lines',
  files_with_matches: 'files',
  count: 'files',
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

function capNote(output: GrepOutput, mode: OutputMode): string | undefined {
  const unit = UNITS[mode]
  if (output.more) {
    return `[Stopped at head_limit: the first ${output.kept} ${unit} are shown and more exist. Raise head_limit or narrow the search with path, glob or type.]`
  }
  if (output.leftOut > 0) {
    return `[Showing the first ${output.kept} ${unit}; ${output.leftOut} more left out. Narrow the search with path, glob or type, or set head_limit.]`
  }
  return undefined
}

export function formatGrepOutput(output: GrepOutput, mode: OutputMode): string {
  if (output.kept === 0 && !output.more) return 'No matches found'
  const parts: string[] = []
  if (mode === 'files_with_matches') parts.push(`Found ${plural(output.files, 'file')}`)
  parts.push(output.text)
  if (mode === 'count') parts.push(`\nFound ${plural(output.matchingLines, 'matching line')} in ${plural(output.files, 'file')}`)
  const note = capNote(output, mode)
  if (note !== undefined) parts.push(`\n${note}`)
  return parts.join('\n')
}
