import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Value } from '@sinclair/typebox/value'
import { DisplaySchema, FILE_DIFF_MAX_HUNKS, FILE_DIFF_MAX_LINE_CHARS, FILE_DIFF_MAX_LINES, type DiffHunk, type FileDiffDisplay } from '../../src/contracts/display.js'
import { buildFileDiffDisplay } from '../../src/output/file-diff-display.js'

function lines(count: number, make: (i: number) => string): string {
  return Array.from({ length: count }, (_, i) => make(i) + '\n').join('')
}

function totalLines(display: FileDiffDisplay): number {
  return display.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0)
}

/** Every hunk's ranges must describe exactly the lines it holds. */
function expectConsistentRanges(display: FileDiffDisplay): void {
  for (const hunk of display.hunks) {
    expect(hunk.oldLines).toBe(hunk.lines.filter((l) => !l.startsWith('+')).length)
    expect(hunk.newLines).toBe(hunk.lines.filter((l) => !l.startsWith('-')).length)
  }
}

function expectValid(display: FileDiffDisplay): void {
  expect(Value.Check(DisplaySchema, display)).toBe(true)
  expect(display.hunks.length).toBeLessThanOrEqual(FILE_DIFF_MAX_HUNKS)
  expect(totalLines(display)).toBeLessThanOrEqual(FILE_DIFF_MAX_LINES)
  for (const hunk of display.hunks) for (const line of hunk.lines) expect(line.length).toBeLessThanOrEqual(FILE_DIFF_MAX_LINE_CHARS)
  expectConsistentRanges(display)
}

/** Applies the hunks (oldStart is the 1-based old line each begins at, even with no old lines). */
function applyHunks(oldLines: readonly string[], hunks: readonly DiffHunk[]): string[] {
  const result: string[] = []
  let next = 0
  for (const hunk of hunks) {
    while (next < hunk.oldStart - 1) result.push(oldLines[next++] ?? '')
    for (const line of hunk.lines) {
      if (line.startsWith('+')) result.push(line.slice(1))
      else {
        if (line.startsWith(' ')) result.push(line.slice(1))
        next++
      }
    }
  }
  while (next < oldLines.length) result.push(oldLines[next++] ?? '')
  return result
}

describe('file_diff display', () => {
  it('R38 keeps exactly 8 hunks of a change in 20 separate places and marks it truncated', () => {
    const oldContent = lines(200, (i) => `line ${i}`)
    const newContent = lines(200, (i) => (i % 10 === 5 ? `changed ${i}` : `line ${i}`))
    const display = buildFileDiffDisplay({ filePath: 'src/a.ts', oldContent, newContent })
    expect(display.hunks).toHaveLength(8)
    expect(display.truncated).toBe(true)
    expect(display.additions).toBe(20)
    expect(display.deletions).toBe(20)
    expect(display.operation).toBe('update')
    expectValid(display)
  })

  it('R38 keeps 8 hunks untruncated when there are exactly 8 and they fit the line limit', () => {
    const oldContent = lines(80, (i) => `line ${i}`)
    const newContent = lines(80, (i) => (i % 10 === 5 ? `changed ${i}` : `line ${i}`))
    const display = buildFileDiffDisplay({ filePath: 'a.txt', oldContent, newContent })
    expect(display.hunks).toHaveLength(8)
    expect(display.truncated).toBe(false)
    expectValid(display)
  })

  it('R38 cuts a 500-line rewrite to 160 lines in total and still counts every change', () => {
    const oldContent = lines(500, (i) => `old ${i}`)
    const newContent = lines(500, (i) => `new ${i}`)
    const display = buildFileDiffDisplay({ filePath: 'big.txt', oldContent, newContent })
    expect(totalLines(display)).toBe(FILE_DIFF_MAX_LINES)
    expect(display.truncated).toBe(true)
    expect(display.additions).toBe(500)
    expect(display.deletions).toBe(500)
    expectValid(display)
  })

  it('R38 falls back to a whole-file replacement when the diff is too costly, within the limits', () => {
    const oldContent = 'same\n' + lines(1500, (i) => `old ${i}`)
    const newContent = 'same\n' + lines(1500, (i) => `new ${i}`)
    const started = performance.now()
    const display = buildFileDiffDisplay({ filePath: 'huge.txt', oldContent, newContent })
    expect(performance.now() - started).toBeLessThan(2_000)
    // A real diff would keep `same` as context; the fallback replaces every line.
    expect(display.hunks[0]?.lines[0]).toBe('-same')
    expect(display.additions).toBe(1501)
    expect(display.deletions).toBe(1501)
    expect(display.truncated).toBe(true)
    expectValid(display)
  })

  it.each([
    ['a created 9 MB file', null, lines(700_000, () => 'line of text')],
    ['a 9 MB file rewritten line by line', lines(700_000, () => 'line of text'), lines(700_000, () => 'LINE')],
  ])('builds the display of %s at the cost of counting its lines, not of diffing it', (_name, oldContent, newContent) => {
    const started = performance.now()
    const display = buildFileDiffDisplay({ filePath: 'huge.txt', oldContent, newContent })
    // Diffing held the event loop, and every session with it, for 0.7 to 1.4 s here.
    expect(performance.now() - started).toBeLessThan(300)
    expect(display.additions).toBe(700_000)
    expect(display.deletions).toBe(oldContent === null ? 0 : 700_000)
    expect(totalLines(display)).toBe(FILE_DIFF_MAX_LINES)
    expect(display.truncated).toBe(true)
    expectValid(display)
  })

  it('R38 shows a created file as operation create with every line added', () => {
    const display = buildFileDiffDisplay({ filePath: 'new.md', oldContent: null, newContent: 'a\nb\n' })
    expect(display).toMatchObject({ operation: 'create', additions: 2, deletions: 0, truncated: false })
    expect(display.hunks).toHaveLength(1)
    expect(display.hunks[0]).toMatchObject({ oldLines: 0, newStart: 1, newLines: 2, lines: ['+a', '+b'] })
    expectValid(display)
  })

  it.each([
    ['an empty file', null, ''],
    ['an unchanged file', 'same\ntext\n', 'same\ntext\n'],
    ['an unchanged 9 MB file', lines(700_000, () => 'line of text'), lines(700_000, () => 'line of text')],
  ])('R38 gives zero hunks for %s', (_name, oldContent, newContent) => {
    const display = buildFileDiffDisplay({ filePath: 'f', oldContent, newContent })
    expect(display.hunks).toEqual([])
    expect(display).toMatchObject({ additions: 0, deletions: 0, truncated: false })
    expectValid(display)
  })

  it.each([
    ['drops the no-newline markers', 'a\nb', 'a\nc', [' a', '-b', '+c']],
    ['shows CRLF lines without the carriage return', 'a\r\nb\r\n', 'a\r\nc\r\n', [' a', '-b', '+c']],
    ['counts a line-ending change as a change', 'a\r\n', 'a\n', ['-a', '+a']],
  ])('R38 %s', (_name, oldContent, newContent, expected) => {
    const display = buildFileDiffDisplay({ filePath: 'f', oldContent, newContent })
    expect(display.hunks.flatMap((h) => h.lines)).toEqual(expected)
    expectValid(display)
  })

  it.each<[string, string | null, string, string[], boolean]>([
    ['a created 2 MB file of one line', null, 'x'.repeat(2_000_000), ['+' + 'x'.repeat(999)], true],
    ['an updated line of 5,000 characters', 'short\n', `${'y'.repeat(5_000)}\n`, ['-short', '+' + 'y'.repeat(999)], true],
    ['a line cut before a surrogate pair it would split', null, `${'z'.repeat(998)}😀tail`, ['+' + 'z'.repeat(998)], true],
    ['a line of exactly 1,000 characters with its marker', null, 'w'.repeat(999), ['+' + 'w'.repeat(999)], false],
  ])('R38 keeps the first 1,000 characters of a long line and says so: %s', (_name, oldContent, newContent, expected, truncated) => {
    const display = buildFileDiffDisplay({ filePath: 'f', oldContent, newContent })
    expect(display.hunks.flatMap((h) => h.lines)).toEqual(expected)
    expect(display.truncated).toBe(truncated)
    expectValid(display)
  })

  it('R38 keeps the limits and, when untruncated, hunks that rebuild the new file', () => {
    const fileLines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 60 })
    fc.assert(
      fc.property(fileLines, fileLines, (oldLines, newLines) => {
        const oldContent = oldLines.map((l) => l + '\n').join('')
        const newContent = newLines.map((l) => l + '\n').join('')
        const display = buildFileDiffDisplay({ filePath: 'p', oldContent, newContent })
        expectValid(display)
        if (!display.truncated) expect(applyHunks(oldLines, display.hunks)).toEqual(newLines)
      }),
    )
  })
})
