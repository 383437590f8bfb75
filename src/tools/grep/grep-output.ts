/**
 * @module Where Grep's results collect: entries (output lines, file paths or `path:count`)
 * up to a cap. With head_limit the search stops at the cap; without it the search goes on
 * only counting, so the note can say how many entries were left out.
 */
import type { OutputSink } from './content-printer.js'

export type OutputMode = 'content' | 'files_with_matches' | 'count'

export class GrepOutput implements OutputSink {
  readonly lines: string[] = []
  readonly cap: number
  readonly stopAtCap: boolean
  /** Entries kept (separators not counted). */
  kept = 0
  leftOut = 0
  /** head_limit cut the search short: there is more than was shown. */
  more = false
  files = 0
  matchingLines = 0

  constructor(cap: number, stopAtCap: boolean) {
    this.cap = cap
    this.stopAtCap = stopAtCap
  }

  get printedAny(): boolean {
    return this.lines.length > 0
  }

  get stopped(): boolean {
    return this.more
  }

  line(text: string): boolean {
    if (this.kept < this.cap) {
      this.lines.push(text)
      this.kept++
      return true
    }
    if (this.stopAtCap) {
      this.more = true
      return false
    }
    this.leftOut++
    return true
  }

  separator(): void {
    if (this.kept < this.cap) this.lines.push('--')
  }
}

const UNITS: Readonly<Record<OutputMode, string>> = {
  content: 'lines',
  files_with_matches: 'files',
  count: 'files',
}

function capNote(output: GrepOutput, mode: OutputMode): string | undefined {
  const unit = UNITS[mode]
  if (output.more) {
    return `[Stopped at head_limit: the first ${output.kept} ${unit} are shown and more exist. Raise head_limit or narrow the search with path, glob or type.]`
  }
  if (output.leftOut > 0) {
    return `[Showing the first ${output.kept} ${unit}; ${output.leftOut} more left out. Narrow the search with path, glob or type, or set head_limit.]`
  }
  return undefined
}

export function formatGrepOutput(output: GrepOutput, mode: OutputMode): string {
  if (output.kept === 0 && !output.more) return 'No matches found'
  const parts: string[] = []
  if (mode === 'files_with_matches') parts.push(`Found ${output.files} file${output.files === 1 ? '' : 's'}`)
  parts.push(output.lines.join('\n'))
  if (mode === 'count') parts.push(`\nFound ${output.matchingLines} matching line${output.matchingLines === 1 ? '' : 's'} in ${output.files} file${output.files === 1 ? '' : 's'}`)
  const note = capNote(output, mode)
  if (note !== undefined) parts.push(`\n${note}`)
  return parts.join('\n')
}
