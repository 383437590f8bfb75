/**
 * @module The search behind Glob: a glob pattern matched against paths relative to the
 * root, walking only the directories the pattern can reach.
 */
import picomatch from 'picomatch'
import { FileToolError, type PathGuard } from '../workspace.js'
import { walkFiles } from './file-walker.js'
import { TimeSlicer } from './time-slicer.js'

export interface GlobSearch {
  readonly root: string
  readonly pattern: string
  readonly guard: PathGuard
  readonly ignoreBase: string
  readonly signal: AbortSignal
  readonly cap: number
}

export interface GlobMatches {
  /** Absolute paths, sorted, at most `cap`. */
  readonly paths: string[]
  readonly total: number
}

/** A pattern stays below its root: no `..` segment, not absolute. */
export function checkPattern(pattern: string): string {
  const normalized = pattern.startsWith('./') ? pattern.slice(2) : pattern
  if (normalized.startsWith('/') || normalized.split('/').includes('..')) {
    throw new FileToolError('TOOL_ERR_BAD_PATTERN', `The pattern ${JSON.stringify(pattern)} leaves the search directory. Give the directory as \`path\` and a pattern relative to it, without "..".`)
  }
  return normalized
}

/** Which directories can hold a match: those on the way to the pattern's static base, and within its depth. */
function directoryFilter(pattern: string): (relativeDir: string, depth: number) => boolean {
  const { base } = picomatch.scan(pattern)
  const maxDepth = pattern.includes('**') ? Infinity : pattern.split('/').length - 1
  return function canHoldMatch(relativeDir: string, depth: number): boolean {
    if (depth > maxDepth) return false
    if (base === '') return true
    return base === relativeDir || base.startsWith(`${relativeDir}/`) || relativeDir.startsWith(`${base}/`)
  }
}

export async function globFiles(search: GlobSearch): Promise<GlobMatches> {
  const pattern = checkPattern(search.pattern)
  const matches = picomatch(pattern, { dot: true })
  const slicer = new TimeSlicer(search.signal)
  const paths: string[] = []
  let total = 0
  for (const entry of walkFiles({ root: search.root, guard: search.guard, ignoreBase: search.ignoreBase, enter: directoryFilter(pattern) })) {
    if (matches(entry.relative)) {
      total++
      if (paths.length < search.cap) paths.push(entry.absolute)
    }
    if (slicer.due) await slicer.yield()
  }
  return { paths, total }
}
