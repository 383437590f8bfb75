/**
 * @module The search behind Grep. The main thread walks the files in path order, in time
 * slices (see TimeSlicer), and opens each so that only a file inside the guard is ever read
 * (see openWalkedFile); the worker threads of the pool read and match batches of them (see
 * grep-pool.ts) while the walk goes on. Their results are added to the output in path order,
 * so the output is the same as one thread searching file after file.
 */
import { closeSync, openSync } from 'node:fs'
import { openWalkedFile, walkFiles, type WalkEntry } from '../glob/file-walker.js'
import { TimeSlicer } from '../glob/time-slicer.js'
import { GUARDED_READ_FLAGS, isAllowed, outsideError, realPathOfDescriptorSync, type PathGuard } from '../workspace.js'
import type { RecordedBatch } from './batch-recorder.js'
import type { FileFilter } from './grep-pattern.js'
import type { GrepOutput, OutputMode } from './grep-output.js'
import { grepPool, type GrepPool } from './grep-pool.js'
import type { SearchSpec } from './worker-protocol.js'

export interface GrepSearch {
  readonly guard: PathGuard
  readonly signal: AbortSignal
  /** Already checked to compile. */
  readonly pattern: string
  readonly ignoreCase: boolean
  readonly mode: OutputMode
  readonly lineNumbers: boolean
  readonly before: number
  readonly after: number
  readonly output: GrepOutput
}

export interface GrepTree {
  readonly root: string
  readonly ignoreBase: string
  readonly filter: FileFilter | undefined
  /** What the output puts before a path relative to the root ('' or ending in '/'). */
  readonly labelPrefix: string
}

/** Files per batch: enough that a message costs little against the work, few enough to spread a small tree. */
const BATCH_FILES = 128

interface Pending {
  readonly done: Promise<RecordedBatch>
  readonly fds: readonly number[]
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
  #fds: number[] = []
  #labels: string[] = []
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

  add(fd: number, label: string): void {
    this.#fds.push(fd)
    this.#labels.push(label)
    if (this.#fds.length >= BATCH_FILES) this.flush()
  }

  /** Sends the files added so far as a batch. */
  flush(): void {
    if (this.#fds.length === 0) return
    const { output } = this.#search
    const done = this.#pool.run({ spec: this.#spec, room: output.cap - output.kept, stopAtCap: output.stopAtCap, fds: this.#fds, labels: this.#labels })
    const pending: Pending = { done, fds: this.#fds, batch: undefined }
    // Awaited in order by settle(); until then a rejection must not count as unhandled.
    done.then(
      (batch) => (pending.batch = batch),
      () => undefined,
    )
    this.#pending.push(pending)
    this.#fds = []
    this.#labels = []
  }

  /** Merges the batches answered so far, in order, without waiting. */
  mergeAnswered(): void {
    for (let head = this.#pending[0]; head?.batch !== undefined; head = this.#pending[0]) {
      this.#pending.shift()
      closeAll(head.fds)
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
    for (const pending of this.#pending.splice(0)) closeAll(pending.fds)
    closeAll(this.#fds.splice(0))
  }

  #cancel(reason: unknown): Promise<void> {
    this.#cancelled ??= this.#pool.cancel(this.#spec.key, reason)
    return this.#cancelled
  }
}

function closeAll(fds: readonly number[]): void {
  for (const fd of fds) closeSync(fd)
}

/** Searches one named file through a descriptor checked to be inside the guard. */
export async function grepFile(search: GrepSearch, absolute: string, label: string): Promise<void> {
  const fd = openSync(absolute, GUARDED_READ_FLAGS)
  try {
    const realPath = realPathOfDescriptorSync(fd, absolute)
    if (!isAllowed(search.guard, realPath)) throw outsideError(search.guard, absolute, realPath)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  const job = new SearchJob(search, grepPool())
  try {
    job.add(fd, label)
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

/** Opens files until the slice is spent or enough batches wait; true once the tree is walked. */
function walkSlice(search: GrepSearch, tree: GrepTree, files: Iterator<WalkEntry>, job: SearchJob, slicer: TimeSlicer): boolean {
  for (;;) {
    if (slicer.due || job.full) return false
    const next = files.next()
    if (next.done === true) return true
    const entry = next.value
    if (tree.filter !== undefined && !tree.filter(entry.relative)) continue
    const fd = openWalkedFile(entry, search.guard)
    if (fd !== undefined) job.add(fd, tree.labelPrefix + entry.relative)
  }
}
