/**
 * @module The search behind Grep: files in path order, read synchronously in time slices
 * (see TimeSlicer) through one reused buffer, each file opened so that only a file inside
 * the guard is ever read (see openWalkedFile). Binary files are skipped; a large file is
 * searched in chunks of whole lines (see ChunkReader).
 */
import { closeSync, openSync } from 'node:fs'
import { openWalkedFile, walkFiles } from '../glob/file-walker.js'
import { TimeSlicer } from '../glob/time-slicer.js'
import { GUARDED_READ_FLAGS, isAllowed, outsideError, realPathOfDescriptorSync, type PathGuard } from '../workspace.js'
import { ChunkReader } from './chunk-reader.js'
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

function searchDescriptor(reader: ChunkReader, fd: number, scanner: FileScanner): void {
  try {
    reader.read(fd, scanner)
  } catch {
    // Unreadable (EISDIR after a swap, EIO): skipped like grep -s.
  } finally {
    closeSync(fd)
  }
}

/** Searches one named file through a descriptor checked to be inside the guard. */
export function grepFile(search: GrepSearch, absolute: string, label: string): void {
  const fd = openSync(absolute, GUARDED_READ_FLAGS)
  const realPath = realPathOfDescriptorSync(fd, absolute)
  if (!isAllowed(search.guard, realPath)) {
    closeSync(fd)
    throw outsideError(search.guard, absolute, realPath)
  }
  const scanner = createFileScanner(search)
  scanner.start('', label)
  searchDescriptor(new ChunkReader(), fd, scanner)
}

/** Searches every file of the tree in path order, until the output says stop. */
export async function grepTree(search: GrepSearch, tree: GrepTree): Promise<void> {
  const reader = new ChunkReader()
  const scanner = createFileScanner(search)
  const slicer = new TimeSlicer(search.signal)
  for (const entry of walkFiles({ root: tree.root, guard: search.guard, ignoreBase: tree.ignoreBase })) {
    if (tree.filter !== undefined && !tree.filter(entry.relative)) continue
    const fd = openWalkedFile(entry, search.guard)
    if (fd !== undefined) {
      scanner.start(tree.labelPrefix, entry.relative)
      searchDescriptor(reader, fd, scanner)
    }
    if (search.output.stopped) return
    if (slicer.due) await slicer.yield()
  }
}
