/** @module The messages between Grep's searches (main thread) and its worker threads. */
import type { RecordedBatch } from './batch-recorder.js'
import type { PathGuard } from '../workspace.js'
import type { OutputMode } from './output-mode.js'

/** What to look for, the same for every batch of one search. */
export interface SearchSpec {
  /** Identifies the search, so that a worker compiles its pattern once. */
  readonly key: number
  readonly pattern: string
  readonly ignoreCase: boolean
  readonly mode: OutputMode
  readonly lineNumbers: boolean
  readonly before: number
  readonly after: number
}

/**
 * Files to search, found by the walk of the main thread, each opened by the worker as
 * openWalkedFile opens a walked file. Files travel grouped by directory (names only), which
 * keeps the message small and the main thread's work per file to a name. A pinned
 * directory's prefix leads through a descriptor of it that the main thread holds open until
 * the batch is answered or its worker gone.
 */
export interface BatchRequest {
  readonly id: number
  readonly spec: SearchSpec
  readonly guard: PathGuard
  /** How many entries the output still had room for when the batch was sent. */
  readonly room: number
  readonly stopAtCap: boolean
  readonly directories: readonly BatchDirectory[]
}

/** Files of one directory, in walk order. */
export interface BatchDirectory {
  /** A file is opened by `openPrefix + name`. */
  readonly openPrefix: string
  /** A file's absolute path is `absolutePrefix + name`. */
  readonly absolutePrefix: string
  /** The output names a file `labelPrefix + name`. */
  readonly labelPrefix: string
  readonly pinned: boolean
  readonly names: string[]
  /** Indexes in `names` of the symbolic links to files (their targets are checked when opened). */
  readonly links: number[]
}

export type WorkerReply =
  | { readonly kind: 'ready'; readonly threadId: number | undefined }
  | { readonly kind: 'done'; readonly id: number; readonly batch: RecordedBatch }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string }

export interface WorkerData {
  /**
   * An Int32Array's memory: [0] the worker adds 1 at every chunk it reads, so the pool can see
   * it progress; [1] the id of the batch it is running.
   */
  readonly beat: SharedArrayBuffer
}
