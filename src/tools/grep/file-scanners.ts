/**
 * @module What Grep does with each chunk of a file, per output mode: find the first match
 * (files_with_matches), count matching lines (count), or print them with context (content).
 * One scanner serves a whole search, so a file costs no new closures or objects unless it
 * matches. A literal pattern is searched in the raw bytes; only a regular expression needs
 * the text decoded, and only in a chunk that holds the literal text all its matches contain.
 */
import type { ChunkConsumer } from './chunk-reader.js'
import { ContentPrinter, type OutputSink } from './content-printer.js'
import type { CompiledPattern } from './grep-pattern.js'
import type { OutputMode } from './output-mode.js'
import { countMatchingLines, forEachLiteralLine, forEachMatchingLine, hasMatchingLine } from './line-matcher.js'
import { ByteSource, StringSource } from './line-source.js'

/** Where the scanners write: content lines (OutputSink) and the entries of the other modes. */
export interface ScanSink extends OutputSink {
  /** A file's entry in files_with_matches or count mode; false once the search must stop. */
  fileEntry(text: string, matchingLines: number): boolean
  readonly stopped: boolean
}

export interface ScanOptions {
  readonly pattern: CompiledPattern
  readonly mode: OutputMode
  readonly lineNumbers: boolean
  readonly before: number
  readonly after: number
  readonly output: ScanSink
}

export interface FileScanner extends ChunkConsumer {
  /** The next file; the output names it `prefix + relative`, built only when it matches. */
  start(prefix: string, relative: string): void
}

const NEWLINE = 10

/** The chunk's bytes lack the text every match needs: no line of it matches. */
function ruledOut(bytes: Buffer, pattern: CompiledPattern): boolean {
  const required = pattern.literal ?? pattern.prefilter
  return required !== undefined && required.find(bytes, 0) === -1
}

function hasMatch(bytes: Buffer, pattern: CompiledPattern): boolean {
  if (pattern.literal !== undefined) return pattern.literal.find(bytes, 0) !== -1
  if (ruledOut(bytes, pattern)) return false
  return hasMatchingLine(bytes.toString('utf8'), pattern)
}

function countMatches(bytes: Buffer, pattern: CompiledPattern): number {
  if (ruledOut(bytes, pattern)) return 0
  if (pattern.literal === undefined) return countMatchingLines(bytes.toString('utf8'), pattern)
  let count = 0
  forEachLiteralLine(bytes, pattern.literal, () => {
    count++
    return true
  })
  return count
}

function countNewlines(bytes: Buffer): number {
  let count = 0
  for (let index = bytes.indexOf(NEWLINE); index !== -1; index = bytes.indexOf(NEWLINE, index + 1)) count++
  return count
}

class FirstMatchScanner implements FileScanner {
  readonly #options: ScanOptions
  #prefix = ''
  #relative = ''

  constructor(options: ScanOptions) {
    this.#options = options
  }

  start(prefix: string, relative: string): void {
    this.#prefix = prefix
    this.#relative = relative
  }

  chunk(bytes: Buffer): boolean {
    if (!hasMatch(bytes, this.#options.pattern)) return true
    this.#options.output.fileEntry(this.#prefix + this.#relative, 1)
    return false
  }
}

class CountScanner implements FileScanner {
  readonly #options: ScanOptions
  #prefix = ''
  #relative = ''
  #count = 0

  constructor(options: ScanOptions) {
    this.#options = options
  }

  start(prefix: string, relative: string): void {
    this.#prefix = prefix
    this.#relative = relative
    this.#count = 0
  }

  chunk(bytes: Buffer, final: boolean): boolean {
    const { pattern, output } = this.#options
    this.#count += countMatches(bytes, pattern)
    if (final && this.#count > 0) output.fileEntry(`${this.#prefix + this.#relative}:${this.#count}`, this.#count)
    return true
  }
}

class ContentScanner implements FileScanner {
  readonly #options: ScanOptions
  readonly #printer: ContentPrinter
  #prefix = ''
  #relative = ''
  /** The printer is reset for a file only once a chunk of it needs printing. */
  #started = false
  #going = true

  constructor(options: ScanOptions) {
    this.#options = options
    this.#printer = new ContentPrinter({ lineNumbers: options.lineNumbers, before: options.before, after: options.after, sink: options.output })
  }

  start(prefix: string, relative: string): void {
    this.#prefix = prefix
    this.#relative = relative
    this.#started = false
    this.#going = true
  }

  chunk(bytes: Buffer, final: boolean): boolean {
    const { pattern, before } = this.#options
    // A required literal's absence is cheap to prove; then only the lines are counted, unless context depends on them.
    const absent = ruledOut(bytes, pattern)
    if (absent && (!this.#started || this.#printer.idle) && (final || before === 0)) {
      if (!final) this.#startedPrinter().skipLines(countNewlines(bytes))
    } else {
      this.#scan(bytes, this.#startedPrinter())
      this.#going = this.#going && this.#printer.endChunk(final)
    }
    return this.#going
  }

  #startedPrinter(): ContentPrinter {
    if (!this.#started) this.#printer.reset(this.#prefix + this.#relative)
    this.#started = true
    return this.#printer
  }

  #scan(bytes: Buffer, printer: ContentPrinter): void {
    if (this.#options.pattern.literal !== undefined) {
      printer.startChunk(new ByteSource(bytes))
      forEachLiteralLine(bytes, this.#options.pattern.literal, this.#onLine)
      return
    }
    const text = bytes.toString('utf8')
    printer.startChunk(new StringSource(text))
    forEachMatchingLine(text, this.#options.pattern, this.#onLine)
  }

  readonly #onLine = (lineStart: number, lineEnd: number): boolean => {
    this.#going = this.#printer.match(lineStart, lineEnd)
    return this.#going
  }
}

export function createFileScanner(options: ScanOptions): FileScanner {
  if (options.mode === 'files_with_matches') return new FirstMatchScanner(options)
  if (options.mode === 'count') return new CountScanner(options)
  return new ContentScanner(options)
}
