/** @module A file_diff display as a unified diff: hunk headers, old and new line numbers, one row a line. */
import type { ComponentChildren } from 'preact'
import type { DiffHunk, FileDiffDisplay } from '../../src/contracts/display.js'

interface LineRow {
  readonly kind: 'add' | 'del' | 'ctx'
  readonly oldLine: number | undefined
  readonly newLine: number | undefined
  readonly text: string
}

/** A line of the diff, or a hunk's header: the rows of the whole diff's window. */
export type DiffRow = LineRow | { readonly kind: 'hunk'; readonly text: string; readonly oldLine?: undefined; readonly newLine?: undefined }

function rowsOf(hunk: DiffHunk): LineRow[] {
  let oldLine = hunk.oldStart
  let newLine = hunk.newStart
  return hunk.lines.map((line) => {
    const marker = line[0]
    const text = line.slice(1)
    if (marker === '+') return { kind: 'add', oldLine: undefined, newLine: newLine++, text }
    if (marker === '-') return { kind: 'del', oldLine: oldLine++, newLine: undefined, text }
    return { kind: 'ctx', oldLine: oldLine++, newLine: newLine++, text }
  })
}

const hunkHeader = (hunk: DiffHunk): string => `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`

/** Every row of a display, hunk headers included, in order. */
export function diffRows(display: FileDiffDisplay): DiffRow[] {
  return display.hunks.flatMap((hunk): DiffRow[] => [{ kind: 'hunk', text: hunkHeader(hunk) }, ...rowsOf(hunk)])
}

export const MARKERS = { add: '+', del: '-', ctx: ' ' } as const

export function DiffCaption({ display, children }: { readonly display: FileDiffDisplay; readonly children?: ComponentChildren }) {
  return (
    <figcaption>
      <span class="diff-path" data-testid="diff-path">
        {display.filePath}
      </span>
      <span class="diff-op">{display.operation === 'create' ? 'new file' : 'update'}</span>
      <span class="add-count">+{display.additions}</span>
      <span class="del-count">-{display.deletions}</span>
      {children}
    </figcaption>
  )
}

export function DiffView({ display, testId = 'diff', compact = false }: { readonly display: FileDiffDisplay; readonly testId?: string; readonly compact?: boolean }) {
  return (
    <figure class={compact ? 'diff compact' : 'diff'} data-testid={testId}>
      <DiffCaption display={display}>{display.truncated ? <span class="notice">diff shortened (at most 8 hunks, 160 lines)</span> : null}</DiffCaption>
      <div class="diff-scroll">
        <table>
          {display.hunks.map((hunk, index) => (
            <tbody key={index}>
              <tr class="hunk">
                <td colSpan={4}>{hunkHeader(hunk)}</td>
              </tr>
              {rowsOf(hunk).map((row, rowIndex) => (
                <tr key={rowIndex} class={`line ${row.kind}`} data-testid="diff-line">
                  <td class="ln">{row.oldLine ?? ''}</td>
                  <td class="ln">{row.newLine ?? ''}</td>
                  <td class="marker" aria-hidden="true">
                    {MARKERS[row.kind]}
                  </td>
                  <td class="text">
                    <span class="sr-only">{row.kind === 'add' ? 'added: ' : row.kind === 'del' ? 'removed: ' : ''}</span>
                    {row.text}
                  </td>
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
    </figure>
  )
}

/** A display that is a file_diff, when it is one. */
export function asFileDiff(display: unknown): FileDiffDisplay | undefined {
  if (typeof display !== 'object' || display === null) return undefined
  return (display as { kind?: unknown }).kind === 'file_diff' ? (display as FileDiffDisplay) : undefined
}

/** A preview that is a file_diff display (Write, Edit), when it is one. */
export function previewDiff(preview: unknown): FileDiffDisplay | undefined {
  if (typeof preview !== 'object' || preview === null) return undefined
  return asFileDiff((preview as { display?: unknown }).display)
}
