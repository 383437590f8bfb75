/**
 * @module Grep's content mode for one file: matching lines as `path:line:text` (`-n`), with
 * `-B`/`-A` context lines as `path-line-text` and `--` between groups, as GNU grep prints
 * them. A large file arrives in chunks of whole lines; line numbers, pending after-context
 * and the last lines kept for before-context carry over from one chunk to the next.
 */
import { cutLongLine } from '../read/text-window.js'
import type { LineSource } from './line-source.js'

export interface OutputSink {
  /** Adds one output line; false once the search must stop (head_limit reached). */
  line(text: string): boolean
  separator(): void
  readonly printedAny: boolean
}

export interface PrinterOptions {
  readonly lineNumbers: boolean
  readonly before: number
  readonly after: number
  readonly sink: OutputSink
}

interface KeptLine {
  readonly number: number
  readonly text: string
}

const EMPTY_SOURCE: LineSource = { length: 0, newlineAt: () => -1, newlineBefore: () => -1, text: () => '' }

function lineText(raw: string): string {
  return cutLongLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw)
}

/** One printer serves a whole search: `reset` starts the next file. */
export class ContentPrinter {
  readonly #options: PrinterOptions
  readonly #context: boolean
  #label = ''
  #source: LineSource = EMPTY_SOURCE
  #lineBase = 0
  #countedPos = 0
  #countedLine = 1
  #lastPrinted = 0
  #printedInFile = false
  #cursorPos = 0
  #afterLeft = 0
  #kept: KeptLine[] = []

  constructor(options: PrinterOptions) {
    this.#options = options
    this.#context = options.before > 0 || options.after > 0
  }

  reset(label: string): void {
    this.#label = label
    this.#source = EMPTY_SOURCE
    this.#lineBase = 0
    this.#countedPos = 0
    this.#countedLine = 1
    this.#lastPrinted = 0
    this.#printedInFile = false
    this.#cursorPos = 0
    this.#afterLeft = 0
    this.#kept = []
  }

  /** No after-context is owed: a chunk without matches can be skipped. */
  get idle(): boolean {
    return this.#afterLeft === 0
  }

  /** A chunk that was not read line by line: only its lines are counted. */
  skipLines(count: number): void {
    this.#lineBase += count
    this.#kept = []
  }

  startChunk(source: LineSource): void {
    this.#source = source
    this.#countedPos = 0
    this.#countedLine = this.#lineBase + 1
    this.#cursorPos = 0
  }

  /** Prints the matching line [lineStart, lineEnd) of the current chunk with its context. */
  match(lineStart: number, lineEnd: number): boolean {
    const number = this.#lineNumberAt(lineStart)
    if (!this.#flushAfter(number - 1)) return false
    const from = Math.max(this.#lastPrinted + 1, number - this.#options.before)
    const gap = !this.#printedInFile || from > this.#lastPrinted + 1
    if (this.#context && gap && this.#options.sink.printedAny) this.#options.sink.separator()
    if (from < number && !this.#printBefore(from, number, lineStart)) return false
    if (!this.#print(number, ':', this.#source.text(lineStart, lineEnd))) return false
    this.#cursorPos = lineEnd + 1
    this.#afterLeft = this.#options.after
    return true
  }

  /** Flushes after-context, keeps the last lines for the next chunk's before-context, advances the line count. */
  endChunk(final: boolean): boolean {
    if (!this.#flushAfter(Infinity)) return false
    if (final) return true
    if (this.#options.before > 0) this.#kept = this.#lastLines(this.#options.before)
    this.#lineBase = this.#lineNumberAt(this.#source.length) - 1
    return true
  }

  /** The number of the line starting at `lineStart`, counting forward from the last one asked. */
  #lineNumberAt(lineStart: number): number {
    let position = this.#countedPos
    let line = this.#countedLine
    while (position < lineStart) {
      const newline = this.#source.newlineAt(position)
      if (newline === -1 || newline >= lineStart) break
      line++
      position = newline + 1
    }
    this.#countedPos = position
    this.#countedLine = line
    return line
  }

  #print(number: number, separator: ':' | '-', raw: string): boolean {
    const { lineNumbers, sink } = this.#options
    const label = this.#label
    const prefix = lineNumbers ? `${label}${separator}${number}${separator}` : `${label}${separator}`
    this.#lastPrinted = number
    this.#printedInFile = true
    return sink.line(prefix + lineText(raw))
  }

  /** After-context: the lines following the last printed one, up to `upTo`, while any are owed. */
  #flushAfter(upTo: number): boolean {
    const source = this.#source
    while (this.#afterLeft > 0 && this.#lastPrinted < upTo && this.#cursorPos < source.length) {
      let end = source.newlineAt(this.#cursorPos)
      if (end === -1) end = source.length
      this.#afterLeft--
      if (!this.#print(this.#lastPrinted + 1, '-', source.text(this.#cursorPos, end))) return false
      this.#cursorPos = end + 1
    }
    return true
  }

  /** Before-context lines from..number-1, walking back from the match (and into the kept lines). */
  #printBefore(from: number, number: number, lineStart: number): boolean {
    const lines: KeptLine[] = []
    let end = lineStart - 1
    for (let line = number - 1; line >= from; line--) {
      if (line <= this.#lineBase) {
        const kept = this.#kept.find((candidate) => candidate.number === line)
        if (kept !== undefined) lines.push(kept)
        continue
      }
      const start = this.#source.newlineBefore(end) + 1
      lines.push({ number: line, text: this.#source.text(start, end) })
      end = start - 1
    }
    for (let index = lines.length - 1; index >= 0; index--) {
      const line = lines[index] as KeptLine
      if (!this.#print(line.number, '-', line.text)) return false
    }
    return true
  }

  /** The last `count` lines of the current chunk (which ends with a newline). */
  #lastLines(count: number): KeptLine[] {
    const total = this.#lineNumberAt(this.#source.length) - 1
    const lines: KeptLine[] = []
    let end = this.#source.length - 1
    for (let line = total; line > total - count && line > this.#lineBase && end >= 0; line--) {
      const start = this.#source.newlineBefore(end) + 1
      lines.unshift({ number: line, text: this.#source.text(start, end) })
      end = start - 1
    }
    return lines
  }
}
