/**
 * @module The file_diff display (R38): a unified diff of a Write or Edit, limited to
 * FILE_DIFF_MAX_HUNKS hunks, FILE_DIFF_MAX_LINES lines in total and FILE_DIFF_MAX_LINE_CHARS
 * characters a line (a one-line 2 MB Write must not copy its text into every reply again).
 */
import { structuredPatch, type StructuredPatchHunk } from 'diff'
import { FILE_DIFF_MAX_HUNKS, FILE_DIFF_MAX_LINE_CHARS, FILE_DIFF_MAX_LINES, type DiffHunk, type FileDiffDisplay } from '../contracts/display.js'

/** How much a display keeps: the reply's limits, or (an approval's diff opened in full) far more. */
export interface DiffLimits {
  readonly hunks: number
  readonly lines: number
}

const REPLY_LIMITS: DiffLimits = { hunks: FILE_DIFF_MAX_HUNKS, lines: FILE_DIFF_MAX_LINES }
/** The whole diff of an approval: every hunk, up to a bound no reviewer reads past. */
export const WHOLE_DIFF_LIMITS: DiffLimits = { hunks: Number.POSITIVE_INFINITY, lines: 20_000 }

export interface FileDiffArgs {
  readonly filePath: string
  /** null when the file did not exist before the call. */
  readonly oldContent: string | null
  readonly newContent: string
}

/**
 * The file_diff display of a file tool's output (`filePath`, `oldContent`, `newContent`, as
 * Write and Edit return them); undefined when the output does not have that shape.
 */
export function fileDiffDisplay(output: unknown): FileDiffDisplay | undefined {
  if (typeof output !== 'object' || output === null) return undefined
  const { filePath, oldContent, newContent } = output as Readonly<Record<string, unknown>>
  if (typeof filePath !== 'string' || typeof newContent !== 'string') return undefined
  if (oldContent !== null && typeof oldContent !== 'string') return undefined
  return buildFileDiffDisplay({ filePath, oldContent, newContent })
}

const CONTEXT_LINES = 3
// jsdiff's Myers costs O((N+M)·D) with heavy allocation (about 0.3 s at D = 1000): a
// rewrite must not stall the call for a UI projection, so past this it shows a replacement.
const MAX_EDIT_LENGTH = 1_000
const DIFF_TIMEOUT_MS = 300
const MAX_DIFF_CHARS = 1_000_000
const NO_NEWLINE_MARKER = '\\'

/**
 * Builds the file_diff display of one file change.
 * @example buildFileDiffDisplay({ filePath: 'a.ts', oldContent: null, newContent: 'x\n' })
 */
export function buildFileDiffDisplay(args: FileDiffArgs, limits: DiffLimits = REPLY_LIMITS): FileDiffDisplay {
  const { hunks: all, additions, deletions } = diffOf(args.oldContent ?? '', args.newContent, limits.lines)
  const limited = limitHunks(all, limits)
  const { hunks, truncated: linesCut } = cutLongLines(limited.hunks)
  const truncated = limited.truncated || linesCut
  return {
    kind: 'file_diff',
    filePath: args.filePath,
    operation: args.oldContent === null ? 'create' : 'update',
    hunks,
    additions,
    deletions,
    truncated,
  }
}

interface Diff {
  readonly hunks: DiffHunk[]
  readonly additions: number
  readonly deletions: number
}

/** Hunks with the no-newline markers dropped and CRLF shown as plain lines. */
function diffOf(oldContent: string, newContent: string, maxLines: number): Diff {
  // jsdiff splits both texts into lines before its time limit applies: that alone holds the
  // event loop, and every session with it, for about a second on a 9 MB Write.
  if (oldContent === newContent) return { hunks: [], additions: 0, deletions: 0 }
  if (oldContent.length + newContent.length > MAX_DIFF_CHARS) return replaceWholeFile(oldContent, newContent, maxLines)
  const patch = structuredPatch('a', 'b', oldContent, newContent, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: DIFF_TIMEOUT_MS,
  })
  if (patch === undefined) return replaceWholeFile(oldContent, newContent, maxLines)
  const hunks = patch.hunks.map(cleanHunk)
  return { hunks, ...countChanges(hunks) }
}

function cleanHunk(hunk: StructuredPatchHunk): DiffHunk {
  const lines: string[] = []
  for (const line of hunk.lines) {
    if (line.startsWith(NO_NEWLINE_MARKER)) continue
    lines.push(line.endsWith('\r') ? line.slice(0, -1) : line)
  }
  return { ...pickRange(hunk), lines }
}

function pickRange(hunk: StructuredPatchHunk): Omit<DiffHunk, 'lines'> {
  return {
    oldStart: hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newStart,
    newLines: hunk.newLines,
  }
}

/**
 * The fallback when the diff gave up: every old line removed, every new line added. Only the
 * lines the display can keep are split out, so its cost stays that of counting newlines.
 */
function replaceWholeFile(oldContent: string, newContent: string, maxLines: number): Diff {
  const deletions = countLines(oldContent)
  const additions = countLines(newContent)
  if (deletions === 0 && additions === 0) return { hunks: [], additions, deletions }
  // One line past the limit, so that limitHunks sees the hunk is cut.
  const removed = firstLines(oldContent, maxLines + 1)
  const added = firstLines(newContent, maxLines + 1 - removed.length)
  const lines = [...removed.map((l) => '-' + l), ...added.map((l) => '+' + l)]
  return { hunks: [{ oldStart: 1, oldLines: deletions, newStart: 1, newLines: additions, lines }], additions, deletions }
}

/** Lines as the display counts them: a final newline ends the last line rather than starting one. */
function countLines(content: string): number {
  if (content === '') return 0
  let count = 0
  for (let at = content.indexOf('\n'); at !== -1; at = content.indexOf('\n', at + 1)) count++
  return content.endsWith('\n') ? count : count + 1
}

/** The first `max` lines, without their line endings. */
function firstLines(content: string, max: number): string[] {
  const lines: string[] = []
  let start = 0
  while (lines.length < max && start < content.length) {
    const end = content.indexOf('\n', start)
    const line = content.slice(start, end === -1 ? content.length : end)
    lines.push(line.endsWith('\r') ? line.slice(0, -1) : line)
    if (end === -1) break
    start = end + 1
  }
  return lines
}

function countChanges(hunks: readonly DiffHunk[]): { additions: number; deletions: number } {
  let additions = 0
  let deletions = 0
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions++
      else if (line.startsWith('-')) deletions++
    }
  }
  return { additions, deletions }
}

function limitHunks(all: readonly DiffHunk[], limits: DiffLimits): { hunks: DiffHunk[]; truncated: boolean } {
  const hunks: DiffHunk[] = []
  let remaining = limits.lines
  for (const hunk of all) {
    if (hunks.length === limits.hunks || remaining === 0) return { hunks, truncated: true }
    if (hunk.lines.length > remaining) {
      hunks.push(cutHunk(hunk, remaining))
      return { hunks, truncated: true }
    }
    hunks.push(hunk)
    remaining -= hunk.lines.length
  }
  return { hunks, truncated: false }
}

/** Cuts every line longer than FILE_DIFF_MAX_LINE_CHARS (its marker included), never inside a surrogate pair. */
function cutLongLines(hunks: DiffHunk[]): { hunks: DiffHunk[]; truncated: boolean } {
  if (!hunks.some((hunk) => hunk.lines.some((line) => line.length > FILE_DIFF_MAX_LINE_CHARS))) return { hunks, truncated: false }
  return { hunks: hunks.map((hunk) => ({ ...hunk, lines: hunk.lines.map(cutLine) })), truncated: true }
}

function cutLine(line: string): string {
  if (line.length <= FILE_DIFF_MAX_LINE_CHARS) return line
  const last = line.charCodeAt(FILE_DIFF_MAX_LINE_CHARS - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? FILE_DIFF_MAX_LINE_CHARS - 1 : FILE_DIFF_MAX_LINE_CHARS
  return line.slice(0, end)
}

/** Keeps the first `keep` lines and recounts the ranges to match them. */
function cutHunk(hunk: DiffHunk, keep: number): DiffHunk {
  const lines = hunk.lines.slice(0, keep)
  let oldLines = 0
  let newLines = 0
  for (const line of lines) {
    if (!line.startsWith('+')) oldLines++
    if (!line.startsWith('-')) newLines++
  }
  return { oldStart: hunk.oldStart, oldLines, newStart: hunk.newStart, newLines, lines }
}
