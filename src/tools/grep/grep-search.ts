/**
 * @module The search behind Grep: files in path order, read synchronously in time slices
 * (see TimeSlicer) through one reused buffer, each file opened so that only a file inside
 * the guard is ever read (see openWalkedFile). Binary files are skipped; a large file is
 * searched in chunks of whole lines (see ChunkReader).
 */
import { closeSync, openSync } from 'node:fs'
import { openWalkedFile, walkFiles, type WalkEntry } from '../glob/file-walker.js'
import { TimeSlicer } from '../glob/time-slicer.js'
import { FileToolError, GUARDED_READ_FLAGS, isAllowed, outsideError, realPathOfDescriptorSync, type PathGuard } from '../workspace.js'
import { runBounded } from './bounded-matching.js'
import { ChunkReader, type ChunkConsumer } from './chunk-reader.js'
import { createFileScanner, type FileScanner, type ScanOptions } from './file-scanners.js'
import type { FileFilter } from './grep-pattern.js'

export interface GrepSearch extends ScanOptions {
  readonly guard: PathGuard
  readonly signal: AbortSignal
}

export interface GrepTree {
  readonly root: string
  readonly ignoreBase: string
  readonly filter: FileFilter | undefined
  /** What the output puts before a path relative to the root ('' or ending in '/'). */
  readonly labelPrefix: string
}

function searchDescriptor(reader: ChunkReader, fd: number, scanner: ChunkConsumer): void {
  try {
    reader.read(fd, scanner)
  } catch (error) {
    // A pattern stopped for taking too long fails the call.
    if (error instanceof FileToolError) throw error
    // Unreadable (EISDIR after a swap, EIO): skipped like grep -s.
  } finally {
    closeSync(fd)
  }
}

/**
 * Searches one named file through a descriptor checked to be inside the guard, in time
 * slices of whole chunks (a file of gigabytes must not hold the event loop), each bounded.
 */
export async function grepFile(search: GrepSearch, absolute: string, label: string): Promise<void> {
  const fd = openSync(absolute, GUARDED_READ_FLAGS)
  try {
    const realPath = realPathOfDescriptorSync(fd, absolute)
    if (!isAllowed(search.guard, realPath)) throw outsideError(search.guard, absolute, realPath)
    const scanner = createFileScanner(search)
    scanner.start('', label)
    const steps = new ChunkReader().steps(fd, scanner)
    const slicer = new TimeSlicer(search.signal)
    while (!runBounded(search.pattern.source, () => stepUntilDue(steps, slicer))) await slicer.yield()
  } finally {
    closeSync(fd)
  }
}

/** Reads chunks until the slice is spent; true once the file is done. An unreadable file is done (grep -s). */
function stepUntilDue(steps: Generator<void, boolean, undefined>, slicer: TimeSlicer): boolean {
  try {
    while (steps.next().done !== true) if (slicer.due) return false
  } catch (error) {
    if (error instanceof FileToolError) throw error
  }
  return true
}

/** Searches every file of the tree in path order, until the output says stop; each time slice is bounded. */
export async function grepTree(search: GrepSearch, tree: GrepTree): Promise<void> {
  const slice: TreeSlice = {
    search,
    tree,
    files: walkFiles({ root: tree.root, guard: search.guard, ignoreBase: tree.ignoreBase }),
    reader: new ChunkReader(),
    scanner: createFileScanner(search),
    slicer: new TimeSlicer(search.signal),
    openFd: undefined,
  }
  try {
    while (!runBounded(search.pattern.source, () => searchSlice(slice))) await slice.slicer.yield()
  } finally {
    // Set only when a stopped slice skipped the close.
    if (slice.openFd !== undefined) closeSync(slice.openFd)
  }
}

interface TreeSlice {
  readonly search: GrepSearch
  readonly tree: GrepTree
  readonly files: Iterator<WalkEntry>
  readonly reader: ChunkReader
  readonly scanner: FileScanner
  readonly slicer: TimeSlicer
  openFd: number | undefined
}

/** Searches files until the slice is spent; true once the tree is done or the output says stop. */
function searchSlice(slice: TreeSlice): boolean {
  const { search, tree } = slice
  for (let next = slice.files.next(); next.done !== true; next = slice.files.next()) {
    const entry = next.value
    if (tree.filter !== undefined && !tree.filter(entry.relative)) continue
    const fd = openWalkedFile(entry, search.guard)
    if (fd !== undefined) {
      slice.openFd = fd
      slice.scanner.start(tree.labelPrefix, entry.relative)
      searchDescriptor(slice.reader, fd, slice.scanner)
      slice.openFd = undefined
    }
    if (search.output.stopped) return true
    if (slice.slicer.due) return false
  }
  return true
}
