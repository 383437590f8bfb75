/**
 * @module The file_diff display (R38): a unified diff of a Write or Edit, limited to
 * FILE_DIFF_MAX_HUNKS hunks and FILE_DIFF_MAX_LINES lines in total.
 */
import { structuredPatch, type StructuredPatchHunk } from 'diff'
import {
  FILE_DIFF_MAX_HUNKS,
  FILE_DIFF_MAX_LINES,
  type DiffHunk,
  type FileDiffDisplay,
} from '../contracts/display.js'

export interface FileDiffArgs {
  readonly filePath: string
  /** null when the file did not exist before the call. */
  readonly oldContent: string | null
  readonly newContent: string
}

const CONTEXT_LINES = 3
// jsdiff's Myers costs O((N+M)·D) with heavy allocation (about 0.3 s at D = 1000): a
// rewrite must not stall the call for a UI projection, so past this it shows a replacement.
const MAX_EDIT_LENGTH = 1_000
const DIFF_TIMEOUT_MS = 300
const NO_NEWLINE_MARKER = '\\'

/**
 * Builds the file_diff display of one file change.
 * @example buildFileDiffDisplay({ filePath: 'a.ts', oldContent: null, newContent: 'x\n' })
 */
export function buildFileDiffDisplay(args: FileDiffArgs): FileDiffDisplay {
  const all = diffHunks(args.oldContent ?? '', args.newContent)
  const { additions, deletions } = countChanges(all)
  const { hunks, truncated } = limitHunks(all)
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

/** Hunks with the no-newline markers dropped and CRLF shown as plain lines. */
function diffHunks(oldContent: string, newContent: string): DiffHunk[] {
  const patch = structuredPatch('a', 'b', oldContent, newContent, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: DIFF_TIMEOUT_MS,
  })
  if (patch === undefined) return replaceWholeFile(oldContent, newContent)
  return patch.hunks.map(cleanHunk)
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

/** The fallback when the diff gave up: every old line removed, every new line added. */
function replaceWholeFile(oldContent: string, newContent: string): DiffHunk[] {
  const removed = splitLines(oldContent)
  const added = splitLines(newContent)
  if (removed.length === 0 && added.length === 0) return []
  return [
    {
      oldStart: 1,
      oldLines: removed.length,
      newStart: 1,
      newLines: added.length,
      lines: [...removed.map((l) => '-' + l), ...added.map((l) => '+' + l)],
    },
  ]
}

function splitLines(content: string): string[] {
  if (content === '') return []
  const lines = content.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
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

function limitHunks(all: readonly DiffHunk[]): { hunks: DiffHunk[]; truncated: boolean } {
  const hunks: DiffHunk[] = []
  let remaining = FILE_DIFF_MAX_LINES
  for (const hunk of all) {
    if (hunks.length === FILE_DIFF_MAX_HUNKS || remaining === 0) return { hunks, truncated: true }
    if (hunk.lines.length > remaining) {
      hunks.push(cutHunk(hunk, remaining))
      return { hunks, truncated: true }
    }
    hunks.push(hunk)
    remaining -= hunk.lines.length
  }
  return { hunks, truncated: false }
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
