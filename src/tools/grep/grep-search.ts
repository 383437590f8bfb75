/**
 * @module The search behind Grep. The main thread walks the files in path order, in time
 * slices (see TimeSlicer); the worker threads of the pool open, read and match batches of
 * them (see grep-pool.ts) while the walk goes on, each file opened so that only a file inside
 * the guard is ever read (see openWalkedFile). Their results are added to the output in path order,
 * so the output is the same as one thread searching file after file.
 */
import { closeSync, constants, openSync } from 'node:fs'
import path from 'node:path'
import { walkFiles, type WalkDirectory, type WalkEntry } from '../glob/file-walker.js'
import { TimeSlicer } from '../glob/time-slicer.js'
import { GUARDED_READ_FLAGS, isAllowed, outsideError, realPathOfDescriptorSync, type PathGuard } from '../workspace.js'
import type { RecordedBatch } from './batch-recorder.js'
import type { FileFilter } from './grep-pattern.js'
import type { GrepOutput } from './grep-output.js'
import { grepPool, type GrepPool } from './grep-pool.js'
import type { BatchDirectory, SearchSpec } from './worker-protocol.js'

/** What the batch needs of a walked file. */
export type BatchEntry = Pick<WalkEntry, 'name' | 'directory' | 'pinned' | 'link'>

/** The pattern (already checked to compile) and how to print matches, with where and into what. */
export interface GrepSearch extends Omit<SearchSpec, 'key'> {
  /** Whose search it is (the session): the pool shares its workers fairly between owners. */
  readonly owner: string
  readonly guard: PathGuard
  readonly signal: AbortSignal
  readonly output: GrepOutput
}

export interface GrepTree {
  readonly root: string
  readonly ignoreBase: string
  readonly filter: FileFilter | undefined
  /** What the output puts before a path relative to the root ('' or ending in '/'). */
  readonly labelPrefix: string
}

/** Files in the first batch of a search; each next one doubles, up to MAX_BATCH_FILES. */
const FIRST_BATCH_FILES = 16
const MAX_BATCH_FILES = 512
const PROC_FD = '/proc/self/fd/'
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY

interface Pending {
  readonly done: Promise<RecordedBatch>
  /** Descriptors of the batch's directories, held open for the worker. */
  readonly held: readonly number[]
  /** Set once the worker has answered. */
  batch: RecordedBatch | undefined
}

let nextKey = 0

/**
 * One search's batches: sent to the pool as they fill, merged into the output in the order
 * they were sent. The descriptors of a batch are closed here once its worker has answered
 * or is gone, never while a worker may still read them.
 */
class SearchJob {
  readonly #search: GrepSearch
  readonly #pool: GrepPool
  readonly #spec: SearchSpec
  /** Batches sent and not yet merged; more than this and the walk waits. */
  readonly maxPending: number
  readonly #pending: Pending[] = []
  #directories: BatchDirectory[] = []
  /** The directory files are added to, and the walk's directory it was made for. */
  #directory: BatchDirectory | undefined
  #directorySource: WalkDirectory | undefined
  #fileCount = 0
  /** Descriptors of this batch's directories. */
  #held: number[] = []
  #batchFiles = FIRST_BATCH_FILES
  #cancelled: Promise<void> | undefined
  readonly #onAbort = (): void => void this.#cancel(this.#search.signal.reason)

  constructor(search: GrepSearch, pool: GrepPool) {
    this.#search = search
    this.#pool = pool
    this.maxPending = pool.size * 2 + 2
    const { pattern, ignoreCase, mode, lineNumbers, before, after } = search
    this.#spec = { key: ++nextKey, pattern, ignoreCase, mode, lineNumbers, before, after }
    search.signal.addEventListener('abort', this.#onAbort, { once: true })
  }

  get full(): boolean {
    return this.#pending.length >= this.maxPending
  }

  /** Adds a walked file; one that cannot be reached any more (its directory is gone) is skipped. */
  add(entry: BatchEntry, labelPrefix: string): void {
    if (entry.directory !== this.#directorySource) this.#startDirectory(entry, labelPrefix)
    const current = this.#directory
    if (current === undefined) return
    if (entry.link) current.links.push(current.names.length)
    current.names.push(entry.name)
    if (++this.#fileCount >= this.#batchFiles) this.flush()
  }

  /**
   * The walk closes a directory's descriptor when it moves on, before a worker opens the
   * files in it: so the batch holds a descriptor of its own, opened through the walk's.
   */
  #startDirectory(entry: BatchEntry, labelPrefix: string): void {
    const { directory, pinned } = entry
    this.#directorySource = directory
    this.#directory = undefined
    let openPrefix = directory.openPrefix
    if (pinned) {
      try {
        const fd = openSync(directory.openPrefix, DIRECTORY_FLAGS)
        this.#held.push(fd)
        openPrefix = `${PROC_FD}${fd}/`
      } catch {
        return
      }
    }
    const absolutePrefix = directory.path.endsWith(path.sep) ? directory.path : directory.path + path.sep
    this.#directory = { openPrefix, absolutePrefix, labelPrefix: labelPrefix + directory.relative, pinned, names: [], links: [] }
    this.#directories.push(this.#directory)
  }

  /** Sends the files added so far as a batch. */
  flush(): void {
    if (this.#fileCount === 0) return
    const { output, guard } = this.#search
    const request = { spec: this.#spec, guard, room: output.cap - output.kept, stopAtCap: output.stopAtCap, directories: this.#directories }
    const done = this.#pool.run(request, this.#search.owner)
    const pending: Pending = { done, held: this.#takeHeld(), batch: undefined }
    // Awaited in order by settle(); until then a rejection must not count as unhandled.
    done.then(
      (batch) => (pending.batch = batch),
      () => undefined,
    )
    this.#pending.push(pending)
    this.#directories = []
    this.#directory = undefined
    this.#directorySource = undefined
    this.#fileCount = 0
    this.#batchFiles = Math.min(MAX_BATCH_FILES, this.#batchFiles * 2)
  }

  #takeHeld(): number[] {
    const held = this.#held
    this.#held = []
    return held
  }

  /** Merges the batches answered so far, in order, without waiting. */
  mergeAnswered(): void {
    for (let head = this.#pending[0]; head?.batch !== undefined; head = this.#pending[0]) {
      this.#pending.shift()
      closeAll(head.held)
      if (!this.#search.output.stopped) this.#search.output.merge(head.batch)
    }
  }

  /** Merges answered batches in order until at most `keep` are pending. */
  async settle(keep: number): Promise<void> {
    while (this.#pending.length > keep) {
      const head = this.#pending[0] as Pending
      head.batch = await head.done
      this.mergeAnswered()
    }
  }

  /** Stops what still runs of this search and closes every descriptor it holds. */
  async close(): Promise<void> {
    this.#search.signal.removeEventListener('abort', this.#onAbort)
    if (this.#pending.length > 0) await this.#cancel(new Error('Grep search ended'))
    for (const pending of this.#pending.splice(0)) closeAll(pending.held)
    closeAll(this.#takeHeld())
  }

  #cancel(reason: unknown): Promise<void> {
    this.#cancelled ??= this.#pool.cancel(this.#spec.key, reason)
    return this.#cancelled
  }
}

function closeAll(fds: readonly number[]): void {
  for (const fd of fds) closeSync(fd)
}

/**
 * Searches one named file, checked here to be inside the guard (an error names it otherwise);
 * the worker checks the descriptor it opens again, whatever was swapped in meanwhile.
 */
export async function grepFile(search: GrepSearch, absolute: string, label: string): Promise<void> {
  const fd = openSync(absolute, GUARDED_READ_FLAGS)
  try {
    const realPath = realPathOfDescriptorSync(fd, absolute)
    if (!isAllowed(search.guard, realPath)) throw outsideError(search.guard, absolute, realPath)
  } finally {
    closeSync(fd)
  }
  const job = new SearchJob(search, grepPool())
  try {
    const name = path.basename(absolute)
    const directory = { path: path.dirname(absolute), openPrefix: absolute.slice(0, absolute.length - name.length), relative: '' }
    job.add({ name, directory, pinned: false, link: true }, label.slice(0, label.length - name.length))
    job.flush()
    await job.settle(0)
  } finally {
    await job.close()
  }
}

/** Searches every file of the tree, until the output says stop. */
export async function grepTree(search: GrepSearch, tree: GrepTree): Promise<void> {
  const files = walkFiles({ root: tree.root, guard: search.guard, ignoreBase: tree.ignoreBase })
  const job = new SearchJob(search, grepPool())
  const slicer = new TimeSlicer(search.signal)
  try {
    for (;;) {
      const walked = walkSlice(search, tree, files, job, slicer)
      // Workers search what was found while this thread waits or walks on.
      job.flush()
      job.mergeAnswered()
      if (walked || search.output.stopped) break
      if (job.full) await job.settle(job.maxPending - 1)
      await slicer.yield()
    }
    await job.settle(0)
  } finally {
    files.return(undefined)
    await job.close()
  }
}

/** Walks until the slice is spent or enough batches wait; true once the tree is walked. */
function walkSlice(search: GrepSearch, tree: GrepTree, files: Iterator<WalkEntry>, job: SearchJob, slicer: TimeSlicer): boolean {
  for (;;) {
    if (slicer.due || job.full) return false
    const next = files.next()
    if (next.done === true) return true
    const entry = next.value
    if (tree.filter !== undefined && !tree.filter(entry.relative)) continue
    job.add(entry, tree.labelPrefix)
  }
}
