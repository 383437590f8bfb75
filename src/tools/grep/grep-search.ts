/**
 * @module The search behind Grep: files in path order, read synchronously in time slices
 * (see TimeSlicer) through one reused buffer, each descriptor checked to be inside the guard
 * before a byte is read. Binary files (a NUL in the first 8 KiB) are skipped. A file larger
 * than the buffer is searched in chunks of whole lines, so memory stays bounded.
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { SNIFF_BYTES } from '../read/file-kind.js'
import { openWalkedFile, walkFiles, type WalkEntry } from '../glob/file-walker.js'
import { TimeSlicer } from '../glob/time-slicer.js'
import { GUARDED_READ_FLAGS, isAllowed, outsideError, realPathOfDescriptorSync, type PathGuard } from '../workspace.js'
import { ContentPrinter } from './content-printer.js'
import type { CompiledPattern, FileFilter } from './grep-pattern.js'
import type { GrepOutput, OutputMode } from './grep-output.js'
import { countMatchingLines, forEachLiteralLine, forEachMatchingLine, hasMatchingLine } from './line-matcher.js'
import { ByteSource, StringSource } from './line-source.js'

export interface GrepSearch {
  readonly guard: PathGuard
  readonly pattern: CompiledPattern
  readonly mode: OutputMode
  readonly lineNumbers: boolean
  readonly before: number
  readonly after: number
  readonly output: GrepOutput
  readonly signal: AbortSignal
}

/** A file to search and the path the output shows for it. */
export interface GrepTarget {
  readonly absolute: string
  readonly label: string
}

export interface GrepTree {
  readonly root: string
  readonly ignoreBase: string
  readonly filter: FileFilter | undefined
  /** The output's path for an entry of the walk. */
  readonly label: (entry: WalkEntry) => string
}

const CHUNK_BYTES = 1024 * 1024
// A line longer than this is split: memory stays bounded on a file with no line breaks.
const MAX_CHUNK_BYTES = 16 * 1024 * 1024
const NEWLINE = 10

/** Receives the file's text chunk by chunk; returns false to stop reading the file. */
type ChunkHandler = (bytes: Buffer, final: boolean) => boolean

class ChunkReader {
  #buffer = Buffer.allocUnsafe(CHUNK_BYTES)

  /**
   * Reads an open file from the start and hands over chunks of whole lines. A short read
   * is taken as the end of a regular file, which saves a read per file. Returns false for a
   * binary file.
   */
  read(fd: number, onChunk: ChunkHandler): boolean {
    let filled = 0
    let first = true
    for (;;) {
      const room = this.#buffer.length - filled
      const count = readSync(fd, this.#buffer, filled, room, null)
      const end = filled + count
      if (first && this.#buffer.subarray(0, Math.min(end, SNIFF_BYTES)).includes(0)) return false
      first = false
      if (count < room) {
        onChunk(this.#buffer.subarray(0, end), true)
        return true
      }
      const cut = this.#buffer.lastIndexOf(NEWLINE, end - 1) + 1
      if (cut === 0 && this.#grow()) {
        filled = end
        continue
      }
      const chunkEnd = cut === 0 ? end : cut
      if (!onChunk(this.#buffer.subarray(0, chunkEnd), false)) return true
      filled = end - chunkEnd
      this.#buffer.copy(this.#buffer, 0, chunkEnd, end)
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

type LineVisitor = (lineStart: number, lineEnd: number) => boolean

/** Hands the chunk to the printer and visits its matching lines: in the raw bytes for a literal, else in the decoded text. */
function scanChunk(bytes: Buffer, pattern: CompiledPattern, printer: ContentPrinter, visit: LineVisitor): void {
  if (pattern.literal !== undefined) {
    printer.startChunk(new ByteSource(bytes))
    forEachLiteralLine(bytes, pattern.literal, visit)
    return
  }
  const text = bytes.toString('utf8')
  printer.startChunk(new StringSource(text))
  forEachMatchingLine(text, pattern, visit)
}

function hasMatch(bytes: Buffer, pattern: CompiledPattern): boolean {
  if (pattern.literal !== undefined) return pattern.literal.find(bytes, 0) !== -1
  return hasMatchingLine(bytes.toString('utf8'), pattern)
}

function countMatches(bytes: Buffer, pattern: CompiledPattern): number {
  if (pattern.literal === undefined) return countMatchingLines(bytes.toString('utf8'), pattern)
  let count = 0
  forEachLiteralLine(bytes, pattern.literal, () => {
    count++
    return true
  })
  return count
}

/** The chunk handler of one file for the search's output mode. */
function handlerFor(search: GrepSearch, target: GrepTarget): ChunkHandler {
  const { pattern, output } = search
  if (search.mode === 'files_with_matches') {
    return function findFirst(bytes) {
      if (!hasMatch(bytes, pattern)) return true
      output.files++
      output.line(target.label)
      return false
    }
  }
  if (search.mode === 'count') {
    let count = 0
    return function countLines(bytes, final) {
      count += countMatches(bytes, pattern)
      if (final && count > 0) {
        output.files++
        output.matchingLines += count
        output.line(`${target.label}:${count}`)
      }
      return true
    }
  }
  return contentHandler(search, target)
}

function countNewlines(bytes: Buffer): number {
  let count = 0
  for (let index = bytes.indexOf(NEWLINE); index !== -1; index = bytes.indexOf(NEWLINE, index + 1)) count++
  return count
}

function contentHandler(search: GrepSearch, target: GrepTarget): ChunkHandler {
  const { pattern, output } = search
  const printer = new ContentPrinter({ label: target.label, lineNumbers: search.lineNumbers, before: search.before, after: search.after, sink: output })
  let matched = false
  let going = true
  const onLine: LineVisitor = (start, end) => {
    matched = true
    output.matchingLines++
    going = printer.match(start, end)
    return going
  }
  return function printMatches(bytes, final) {
    // A literal's absence is cheap to prove; then only the lines are counted, unless context depends on them.
    const absent = pattern.literal !== undefined && pattern.literal.find(bytes, 0) === -1
    if (absent && printer.idle && (final || search.before === 0)) {
      if (!final) printer.skipLines(countNewlines(bytes))
    } else {
      scanChunk(bytes, pattern, printer, onLine)
      going = going && printer.endChunk(final)
    }
    if (final && matched) output.files++
    return going
  }
}

function searchDescriptor(search: GrepSearch, reader: ChunkReader, fd: number, target: GrepTarget): void {
  try {
    reader.read(fd, handlerFor(search, target))
  } catch {
    // Unreadable (EISDIR after a swap, EIO): skipped like grep -s.
  } finally {
    closeSync(fd)
  }
}

/** Searches one named file through a descriptor checked to be inside the guard. */
export function grepFile(search: GrepSearch, target: GrepTarget): void {
  let fd: number
  try {
    fd = openSync(target.absolute, GUARDED_READ_FLAGS)
  } catch {
    return
  }
  const realPath = realPathOfDescriptorSync(fd, target.absolute)
  if (!isAllowed(search.guard, realPath)) {
    closeSync(fd)
    throw outsideError(search.guard, target.absolute, realPath)
  }
  searchDescriptor(search, new ChunkReader(), fd, target)
}

/** Searches every file of the tree in path order, until the output says stop. */
export async function grepTree(search: GrepSearch, tree: GrepTree): Promise<void> {
  const reader = new ChunkReader()
  const slicer = new TimeSlicer(search.signal)
  for (const entry of walkFiles({ root: tree.root, guard: search.guard, ignoreBase: tree.ignoreBase })) {
    if (tree.filter !== undefined && !tree.filter(entry.relative)) continue
    const fd = openWalkedFile(entry, search.guard)
    if (fd !== undefined) searchDescriptor(search, reader, fd, { absolute: entry.absolute, label: tree.label(entry) })
    if (search.output.stopped) return
    if (slicer.due) await slicer.yield()
  }
}
