/**
 * @module Per-line matching over a whole chunk of text. One regex scan runs over the chunk
 * (no per-line strings); a match decides its line, and the scan resumes on the next line.
 * As in grep, a pattern matches a line, never across lines: a scan match that runs past its
 * line (`\s`, `[^x]` can match a newline) is re-checked on that line alone.
 */
import type { CompiledPattern } from './grep-pattern.js'
import type { LiteralSearch } from './literal-finder.js'

const NEWLINE = 10

/** Calls `visit(lineStart, lineEnd)` for each matching line of `text`, in order, until it returns false. */
export function forEachMatchingLine(text: string, pattern: CompiledPattern, visit: (lineStart: number, lineEnd: number) => boolean): void {
  const scan = pattern.scan
  const length = text.length
  // After a final newline there is no further line, though `$` and `^` match there.
  const lastLineStart = length === 0 || text.charCodeAt(length - 1) === NEWLINE ? length : Infinity
  scan.lastIndex = 0
  for (;;) {
    const match = scan.exec(text)
    if (match === null) return
    const index = match.index
    const lineStart = index === 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1
    if (lineStart >= lastLineStart) return
    let lineEnd = text.indexOf('\n', index)
    if (lineEnd === -1) lineEnd = length
    const inLine = index + match[0].length <= lineEnd || pattern.line.test(text.slice(lineStart, lineEnd))
    if (inLine && !visit(lineStart, lineEnd)) return
    if (lineEnd >= length) return
    scan.lastIndex = lineEnd + 1
  }
}

/** Does any line of `text` match? */
export function hasMatchingLine(text: string, pattern: CompiledPattern): boolean {
  let found = false
  forEachMatchingLine(text, pattern, () => {
    found = true
    return false
  })
  return found
}

/** How many lines of `text` match. */
export function countMatchingLines(text: string, pattern: CompiledPattern): number {
  let count = 0
  forEachMatchingLine(text, pattern, () => {
    count++
    return true
  })
  return count
}

/** The same for a literal in raw bytes: a line matches when it contains the literal (which holds no newline). */
export function forEachLiteralLine(bytes: Buffer, literal: LiteralSearch, visit: (lineStart: number, lineEnd: number) => boolean): void {
  const length = bytes.length
  for (let from = 0; from < length;) {
    const hit = literal.find(bytes, from)
    if (hit === -1) return
    // Buffer.lastIndexOf counts a negative offset from the end, so a hit at 0 is handled here.
    const lineStart = hit === 0 ? 0 : bytes.lastIndexOf(NEWLINE, hit - 1) + 1
    let lineEnd = bytes.indexOf(NEWLINE, hit)
    if (lineEnd === -1) lineEnd = length
    if (!visit(lineStart, lineEnd)) return
    from = lineEnd + 1
  }
}
