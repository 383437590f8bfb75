/**
 * @module Reads a window of lines from an open text file, cat -n style, while hashing the
 * whole file and counting its lines. Memory stays bounded by the window, whatever the file's
 * size: lines outside the window are only counted.
 */
import { createHash } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'

export interface LineWindow {
  /** 1-based number of the first line to show. */
  readonly offset: number
  readonly limit: number
}

export interface TextWindow {
  /** Numbered lines: right-aligned number, a tab, the line. */
  readonly lines: string[]
  readonly firstLine: number
  /** Number of the last line shown; firstLine - 1 when none. */
  readonly lastLine: number
  readonly totalLines: number
  /** True when the output budget, not the limit, ended the window. */
  readonly stoppedByBytes: boolean
  readonly size: number
  readonly sha256: string
}

export const MAX_LINE_CHARS = 2000
/** The numbered lines stay under Read's 262144-byte budget, leaving room for the notes. */
export const MAX_WINDOW_BYTES = 256_000

const CHUNK_BYTES = 64 * 1024
// 2000 UTF-16 units never take more than 6000 bytes, so a kept prefix this long holds them all.
const MAX_KEPT_LINE_BYTES = 8192
const NEWLINE = 0x0a
const NUMBER_WIDTH = 6

function formatNumberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(NUMBER_WIDTH, ' ')}\t${text}`
}

/**
 * Cuts a line at MAX_LINE_CHARS characters, never inside a surrogate pair, with a note;
 * `longer` says the text is already a prefix of a longer line.
 */
export function cutLongLine(text: string, longer = false): string {
  if (!longer && text.length <= MAX_LINE_CHARS) return text
  let end = Math.min(MAX_LINE_CHARS, text.length)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}... [line truncated at ${MAX_LINE_CHARS} characters]`
}

class WindowCollector {
  readonly lines: string[] = []
  lineNumber = 1
  stoppedByBytes = false
  #end: number
  #bytes = 0
  #pieces: Buffer[] = []
  #kept = 0
  #overlong = false

  constructor(readonly window: LineWindow) {
    this.#end = window.offset + window.limit
  }

  get collecting(): boolean {
    return this.lineNumber >= this.window.offset && this.lineNumber < this.#end
  }

  add(bytes: Buffer): void {
    const room = MAX_KEPT_LINE_BYTES - this.#kept
    if (room <= 0) {
      this.#overlong = true
      return
    }
    const piece = Buffer.from(bytes.subarray(0, room))
    this.#pieces.push(piece)
    this.#kept += piece.length
    if (bytes.length > room) this.#overlong = true
  }

  finishLine(): void {
    if (this.collecting) this.#emit()
    this.lineNumber++
  }

  #emit(): void {
    let text = Buffer.concat(this.#pieces).toString('utf8')
    this.#pieces = []
    this.#kept = 0
    if (this.lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    if (text.endsWith('\r')) text = text.slice(0, -1)
    const line = formatNumberedLine(this.lineNumber, cutLongLine(text, this.#overlong))
    this.#overlong = false
    const bytes = Buffer.byteLength(line, 'utf8') + 1
    if (this.#bytes + bytes > MAX_WINDOW_BYTES) {
      this.stoppedByBytes = true
      this.#end = this.lineNumber
      return
    }
    this.#bytes += bytes
    this.lines.push(line)
  }
}

/** Streams the file from the start through `handle`; `signal` aborts between chunks. */
export async function readTextWindow(handle: FileHandle, window: LineWindow, signal: AbortSignal): Promise<TextWindow> {
  const hash = createHash('sha256')
  const collector = new WindowCollector(window)
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let size = 0
  let partial = 0
  for (;;) {
    signal.throwIfAborted()
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, size)
    if (bytesRead === 0) break
    const view = chunk.subarray(0, bytesRead)
    hash.update(view)
    size += bytesRead
    partial = scanChunk(view, collector, partial)
  }
  if (partial > 0) collector.finishLine()
  const totalLines = collector.lineNumber - 1
  const lastLine = window.offset + collector.lines.length - 1
  return {
    lines: collector.lines,
    firstLine: window.offset,
    lastLine,
    totalLines,
    stoppedByBytes: collector.stoppedByBytes,
    size,
    sha256: hash.digest('hex'),
  }
}

/** Feeds one chunk's lines to the collector; returns the bytes of the unfinished last line. */
function scanChunk(view: Buffer, collector: WindowCollector, partial: number): number {
  let position = 0
  let pending = partial
  while (position < view.length) {
    const newline = view.indexOf(NEWLINE, position)
    const end = newline === -1 ? view.length : newline
    if (collector.collecting) collector.add(view.subarray(position, end))
    if (newline === -1) return pending + (end - position)
    collector.finishLine()
    pending = 0
    position = newline + 1
  }
  return pending
}
