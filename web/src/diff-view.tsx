/** @module A file_diff display as a unified diff: hunk headers, old and new line numbers, one row a line. */
import type { DiffHunk, FileDiffDisplay } from '../../src/contracts/display.js'

interface Row {
  readonly kind: 'add' | 'del' | 'ctx'
  readonly oldLine: number | undefined
  readonly newLine: number | undefined
  readonly text: string
}

function rowsOf(hunk: DiffHunk): Row[] {
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

const MARKERS = { add: '+', del: '-', ctx: ' ' } as const

export function DiffView({ display, testId = 'diff' }: { readonly display: FileDiffDisplay; readonly testId?: string }) {
  return (
    <figure class="diff" data-testid={testId}>
      <figcaption>
        <span class="diff-path">{display.filePath}</span>
        <span class="diff-op">{display.operation === 'create' ? 'new file' : 'update'}</span>
        <span class="add-count">+{display.additions}</span>
        <span class="del-count">-{display.deletions}</span>
        {display.truncated ? <span class="notice">diff shortened (at most 8 hunks, 160 lines)</span> : null}
      </figcaption>
      <div class="diff-scroll">
        <table>
          {display.hunks.map((hunk, index) => (
            <tbody key={index}>
              <tr class="hunk">
                <td colSpan={4}>
                  @@ -{hunk.oldStart},{hunk.oldLines} +{hunk.newStart},{hunk.newLines} @@
                </td>
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

/** A preview that is a file_diff display (Write, Edit), when it is one. */
export function previewDiff(preview: unknown): FileDiffDisplay | undefined {
  if (typeof preview !== 'object' || preview === null) return undefined
  const display = (preview as { display?: unknown }).display
  if (typeof display !== 'object' || display === null) return undefined
  return (display as { kind?: unknown }).kind === 'file_diff' ? (display as FileDiffDisplay) : undefined
}
