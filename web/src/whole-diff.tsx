/**
 * @module The whole diff of an approval, windowed: every row has the same height, so only the
 * rows in view (and a few around them) are in the DOM, however long the diff; 10,000 lines
 * scroll as lightly as 100. Lines do not wrap here; the row scrolls sideways instead.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { FileDiffDisplay } from '../../src/contracts/display.js'
import { diffRows, MARKERS, type DiffRow } from './diff-view.js'

export const ROW_HEIGHT = 20
/** Rows drawn above and below the visible ones, so that a quick scroll shows no gap. */
const OVERSCAN = 20

interface WindowRange {
  readonly first: number
  readonly last: number
}

export function windowOf(scrollTop: number, viewHeight: number, total: number): WindowRange {
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN)
  const last = Math.min(total, Math.ceil((scrollTop + viewHeight) / ROW_HEIGHT) + OVERSCAN)
  return { first, last }
}

function WholeRow({ row, index }: { readonly row: DiffRow; readonly index: number }) {
  if (row.kind === 'hunk') {
    return (
      <div class="whole-row hunk" role="row" aria-rowindex={index + 1}>
        <span role="cell">{row.text}</span>
      </div>
    )
  }
  return (
    <div class={`whole-row ${row.kind}`} role="row" aria-rowindex={index + 1} data-testid="whole-diff-line">
      <span class="ln" role="cell">
        {row.oldLine ?? ''}
      </span>
      <span class="ln" role="cell">
        {row.newLine ?? ''}
      </span>
      <span class="marker" aria-hidden="true">
        {MARKERS[row.kind]}
      </span>
      <span class="text" role="cell">
        <span class="sr-only">{row.kind === 'add' ? 'added: ' : row.kind === 'del' ? 'removed: ' : ''}</span>
        {row.text}
      </span>
    </div>
  )
}

export function WholeDiff({ display }: { readonly display: FileDiffDisplay }) {
  const rows = useRef<readonly DiffRow[]>(diffRows(display)).current
  const scroller = useRef<HTMLDivElement>(null)
  const [view, setView] = useState({ top: 0, height: 480 })
  useLayoutEffect(() => {
    const element = scroller.current
    if (element !== null) setView({ top: element.scrollTop, height: element.clientHeight })
  }, [])
  const onScroll = (event: Event): void => {
    const element = event.currentTarget as HTMLDivElement
    setView({ top: element.scrollTop, height: element.clientHeight })
  }
  const { first, last } = windowOf(view.top, view.height, rows.length)
  return (
    <div
      ref={scroller}
      class="whole-diff"
      data-testid="approval-whole-diff"
      data-rows={rows.length}
      role="table"
      aria-label={`The whole diff of ${display.filePath}, ${rows.length} rows`}
      aria-rowcount={rows.length}
      tabIndex={0}
      onScroll={onScroll}
      style={{ height: `min(60vh, ${rows.length * ROW_HEIGHT + 2}px)` }}
    >
      <div class="whole-space" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
        <div class="whole-window" style={{ transform: `translateY(${first * ROW_HEIGHT}px)` }}>
          {rows.slice(first, last).map((row, offset) => (
            <WholeRow key={first + offset} row={row} index={first + offset} />
          ))}
        </div>
      </div>
    </div>
  )
}
