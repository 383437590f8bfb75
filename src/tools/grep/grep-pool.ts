/**
 * @module The worker threads that do Grep's reading and matching, shared by every Grep call
 * of the process. A regular expression cannot be interrupted while it runs, so on the main
 * thread one catastrophic pattern (`(a+)+$`) would stop every session of the server; in a
 * worker it stops only that worker, which is terminated once it makes no progress for
 * MATCHING_LIMIT_MS (it adds to a shared counter at every chunk it reads), and replaced.
 *
 * Fair across sessions (the batch's owner):
 * - Batches wait in one queue per owner; a free worker serves the owner holding the fewest
 *   workers, equals in turn (see owner-queues.ts). No owner holds more than `size` workers.
 * - An owner holding none gets a thread of its own even when all `size` are busy, up to
 *   MAX_GREP_THREADS: another session's Greps never wait for a stuck one to be stopped. While
 *   a long batch runs, one idle thread is kept started for that (starting one costs 30 ms
 *   compiled, ~1 s through tsx).
 * - A batch running past LONG_BATCH_MS has its thread's priority lowered until it ends (see
 *   thread-priority.ts): the stuck threads then cost the event loop and the short Greps of
 *   others little CPU. The matching limit stays in wall time, as before.
 * A worker holds at most two batches (one running, one ready), both of one owner, the second
 * only while no other owner waits; the batches of other searches a terminated worker held go
 * back to the front of their owner's queue. Workers start on the first search and stay warm
 * until they have been idle for IDLE_MS; an idle worker does not keep the process alive.
 * `close()` terminates them all (the server calls it on shutdown).
 */
import os from 'node:os'
import { Worker } from 'node:worker_threads'
import { FileToolError } from '../workspace.js'
import type { RecordedBatch } from './batch-recorder.js'
import { OwnerQueues } from './owner-queues.js'
import { loweredNice, normalNice, setThreadNice } from './thread-priority.js'
import { workerScriptUrl } from '../../processes/worker-script.js'
import type { BatchRequest, WorkerData, WorkerReply } from './worker-protocol.js'

/** Far above any sane stretch: the worker beats at every chunk it reads, of at most 16 MiB. */
export const MATCHING_LIMIT_MS = 2_000
export const MAX_GREP_WORKERS = 4
/** Threads at most, those seating an owner beyond `size` included. */
export const MAX_GREP_THREADS = 16
/** A batch running longer is background work: its thread's priority is lowered. */
export const LONG_BATCH_MS = 250
const BATCHES_PER_WORKER = 2
/** How long an owner whose batch was stopped as too slow gets no thread beyond the pool. */
const STOPPED_OWNER_MS = 30_000
const WATCH_EVERY_MS = 50
const IDLE_MS = 30_000
const BEAT = 0
const RUNNING = 1
// Compiled (dist/), the worker is plain JavaScript; from the TypeScript source, one bundled
// file, else the .mjs shim that loads it through tsx (worker-script.ts).
const WORKER_URL = workerScriptUrl({
  compiled: new URL('./grep-worker.js', import.meta.url),
  source: new URL('./grep-worker.ts', import.meta.url),
  fallback: new URL('./grep-worker.mjs', import.meta.url),
})

export function slowPatternError(pattern: string, limitMs: number): FileToolError {
  return new FileToolError(
    'TOOL_ERR_PATTERN_TOO_SLOW',
    `The pattern ${JSON.stringify(pattern)} took more than ${limitMs} ms on one stretch of text and was stopped: it backtracks catastrophically (nested or adjacent quantifiers such as (a+)+ or .*.*). Simplify it, e.g. remove nested quantifiers or anchor it with literal text.`,
  )
}

interface Task {
  readonly request: BatchRequest
  readonly owner: string
  resolve(batch: RecordedBatch): void
  reject(error: unknown): void
}

interface PoolWorker {
  readonly thread: Worker
  readonly beat: Int32Array
  readonly tasks: Task[]
  ready: boolean
  threadId: number | undefined
  lastBeat: number
  lastProgressAt: number
  /** When the batch at the head of `tasks` started running. */
  runningSince: number
  lowered: boolean
  /** Its priority could not be raised again: it is stopped once idle. */
  retiring: boolean
  gone: boolean
}

export interface GrepPoolOptions {
  readonly size?: number
  readonly limitMs?: number
  readonly longBatchMs?: number
  readonly maxThreads?: number
}

export class GrepPool {
  readonly size: number
  readonly limitMs: number
  readonly longBatchMs: number
  readonly maxThreads: number
  readonly #workers: PoolWorker[] = []
  readonly #queue = new OwnerQueues<Task>()
  readonly #normalNice = normalNice()
  /** When an owner last had a batch stopped as too slow. */
  readonly #stoppedAt = new Map<string, number>()
  #watch: NodeJS.Timeout | undefined
  #idle: NodeJS.Timeout | undefined
  #nextId = 0

  constructor(options: GrepPoolOptions = {}) {
    this.size = options.size ?? Math.min(MAX_GREP_WORKERS, Math.max(2, os.availableParallelism()))
    this.limitMs = options.limitMs ?? MATCHING_LIMIT_MS
    this.longBatchMs = options.longBatchMs ?? LONG_BATCH_MS
    this.maxThreads = Math.max(this.size, options.maxThreads ?? MAX_GREP_THREADS)
  }

  /** Threads running now (for tests). */
  get threads(): number {
    return this.#workers.length
  }

  /** Searches one batch for `owner` (a session); rejects with TOOL_ERR_PATTERN_TOO_SLOW when its worker had to be stopped. */
  run(request: Omit<BatchRequest, 'id'>, owner: string): Promise<RecordedBatch> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ request: { ...request, id: ++this.#nextId }, owner, resolve, reject })
      this.#dispatch()
    })
  }

  /**
   * Drops the search's waiting batches and terminates every worker holding one of its
   * batches (a running regular expression cannot be stopped otherwise); resolves once those
   * threads are gone, so that the descriptors of the batches can be closed. The batches are
   * rejected with `reason`.
   */
  async cancel(key: number, reason: unknown): Promise<void> {
    for (const task of this.#queue.remove((task) => task.request.spec.key === key)) task.reject(reason)
    const holding = this.#workers.filter((worker) => worker.tasks.some((task) => task.request.spec.key === key))
    await Promise.all(holding.map((worker) => this.#terminate(worker, (task) => (task.request.spec.key === key ? reason : undefined))))
    this.#dispatch()
  }

  /** Terminates every worker; what was waiting or running is rejected. */
  async close(): Promise<void> {
    const closed = new Error('Grep was stopped: the server is shutting down')
    for (const task of this.#queue.remove(() => true)) task.reject(closed)
    await Promise.all([...this.#workers].map((worker) => this.#terminate(worker, () => closed)))
  }

  #dispatch(): void {
    for (let task = this.#nextTask(); task !== undefined; task = this.#nextTask()) {
      const [worker, next] = task
      if (worker.tasks.length === 0) this.#startedRunning(worker)
      worker.tasks.push(next)
      worker.thread.postMessage(next.request)
    }
    this.#keepSpare()
    this.#updateTimers()
  }

  /** The neediest waiting owner that can be given a worker, its next batch and that worker. */
  #nextTask(): [PoolWorker, Task] | undefined {
    for (const owner of this.#queue.byNeed((owner) => this.#held(owner))) {
      const worker = this.#workerFor(owner)
      const task = worker === undefined ? undefined : this.#queue.take(owner)
      if (worker !== undefined && task !== undefined) return [worker, task]
    }
    return undefined
  }

  /**
   * An idle worker, a new one while fewer than `size` are busy (or beyond for a newcomer: an
   * owner holding none whose batch was not stopped lately), else one of the owner's with room.
   */
  #workerFor(owner: string): PoolWorker | undefined {
    const held = this.#held(owner)
    if (held >= this.size) return this.#roomIn(owner)
    const newcomer = held === 0 && !this.#stoppedLately(owner)
    const idle = this.#workers.filter((worker) => worker.tasks.length === 0 && !worker.retiring)
    // While long batches run, the last idle thread is kept for a newcomer.
    const spare = idle.length === 1 && !newcomer && this.#workers.some((worker) => worker.lowered)
    if (idle.length > 0 && !spare) return idle[0]
    const busy = this.#workers.length - idle.length
    if (busy < this.size || (newcomer && this.#workers.length < this.maxThreads)) return this.#spawn()
    return this.#roomIn(owner)
  }

  /**
   * Whether the owner had a batch stopped as too slow within STOPPED_OWNER_MS: such an owner
   * keeps its share of the pool but no thread beyond it, so that owners who keep sending
   * catastrophic patterns cannot take the threads kept for everyone else.
   */
  #stoppedLately(owner: string): boolean {
    const at = this.#stoppedAt.get(owner)
    if (at === undefined) return false
    if (performance.now() - at < STOPPED_OWNER_MS) return true
    this.#stoppedAt.delete(owner)
    return false
  }

  /** A worker of the owner's with room for a ready batch, while no other owner waits. */
  #roomIn(owner: string): PoolWorker | undefined {
    if (this.#queue.owners > 1) return undefined
    return this.#workers.find((worker) => worker.tasks.length < BATCHES_PER_WORKER && worker.tasks[0]?.owner === owner)
  }

  #held(owner: string): number {
    let held = 0
    for (const worker of this.#workers) if (worker.tasks[0]?.owner === owner) held++
    return held
  }

  /** While a long batch runs, one idle thread stays started for an owner that comes next; more idle ones than `size` allows are stopped. */
  #keepSpare(): void {
    const idle = this.#workers.filter((worker) => worker.tasks.length === 0)
    const waitingForLong = this.#workers.some((worker) => worker.lowered)
    if (waitingForLong && idle.length === 0 && this.#workers.length < this.maxThreads) this.#spawn()
    for (const worker of idle.slice(1)) if (this.#workers.length > this.size) void this.#terminate(worker, () => undefined)
  }

  #spawn(): PoolWorker {
    const beat = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)
    const workerData: WorkerData = { beat }
    const thread = new Worker(WORKER_URL, { workerData })
    const worker: PoolWorker = {
      thread,
      beat: new Int32Array(beat),
      tasks: [],
      ready: false,
      threadId: undefined,
      lastBeat: 0,
      lastProgressAt: 0,
      runningSince: 0,
      lowered: false,
      retiring: false,
      gone: false,
    }
    thread.on('message', (reply: WorkerReply) => this.#onReply(worker, reply))
    thread.on('error', (error) => void this.#terminate(worker, () => error))
    thread.on('exit', () => void this.#terminate(worker, () => new Error('A Grep worker thread exited unexpectedly')))
    this.#workers.push(worker)
    return worker
  }

  #onReply(worker: PoolWorker, reply: WorkerReply): void {
    if (reply.kind === 'ready') {
      worker.ready = true
      worker.threadId = reply.threadId
      this.#startedRunning(worker)
      return
    }
    const task = worker.tasks.shift()
    if (task === undefined || task.request.id !== reply.id) throw new Error(`Grep worker replied to batch ${reply.id} out of order`)
    this.#startedRunning(worker)
    if (reply.kind === 'done') task.resolve(reply.batch)
    else task.reject(new Error(`Grep failed in a worker thread: ${reply.message}`))
    if (worker.retiring && worker.tasks.length === 0) void this.#terminate(worker, () => undefined)
    this.#dispatch()
  }

  /** The batch at the head of the worker's tasks starts now (or once the thread is ready); its priority is the normal one again. */
  #startedRunning(worker: PoolWorker): void {
    worker.runningSince = performance.now()
    worker.lastProgressAt = worker.runningSince
    if (!worker.lowered || worker.threadId === undefined) return
    worker.lowered = false
    if (!setThreadNice(worker.threadId, this.#normalNice)) worker.retiring = true
  }

  /** Stops a worker; its tasks get `rejection(task)`, or go back to the front of their owner's queue when that is undefined. */
  async #terminate(worker: PoolWorker, rejection: (task: Task) => unknown): Promise<void> {
    if (worker.gone) return
    worker.gone = true
    this.#workers.splice(this.#workers.indexOf(worker), 1)
    const requeue: Task[] = []
    const rejected: [Task, unknown][] = []
    for (const task of worker.tasks.splice(0)) {
      const reason = rejection(task)
      if (reason === undefined) requeue.push(task)
      else rejected.push([task, reason])
    }
    this.#queue.unshift(requeue)
    await worker.thread.terminate()
    // Only now is the thread stopped (Node closes the files it had open): the batches' directories may be closed.
    for (const [task, reason] of rejected) task.reject(reason)
    this.#dispatch()
  }

  /** Watches busy workers for progress; starts the idle countdown when none is busy. */
  #updateTimers(): void {
    const busy = this.#workers.some((worker) => worker.tasks.length > 0)
    for (const worker of this.#workers) {
      if (busy) worker.thread.ref()
      else worker.thread.unref()
    }
    if (busy && this.#watch === undefined) this.#watch = setInterval(() => this.#watchProgress(), WATCH_EVERY_MS)
    if (!busy && this.#watch !== undefined) {
      clearInterval(this.#watch)
      this.#watch = undefined
    }
    clearTimeout(this.#idle)
    this.#idle = undefined
    if (!busy && this.#workers.length > 0) {
      this.#idle = setTimeout(() => void this.close(), IDLE_MS)
      this.#idle.unref()
    }
  }

  #watchProgress(): void {
    const now = performance.now()
    let lowered = false
    for (const worker of [...this.#workers]) {
      if (!worker.ready || worker.tasks.length === 0) continue
      if (!worker.lowered && now - worker.runningSince >= this.longBatchMs) lowered = this.#lower(worker) || lowered
      const beat = Atomics.load(worker.beat, BEAT)
      if (beat !== worker.lastBeat) {
        worker.lastBeat = beat
        worker.lastProgressAt = now
        continue
      }
      if (now - worker.lastProgressAt < this.limitMs) continue
      // The batch it is running is the one stuck; others it held go back to the queue.
      const running = Atomics.load(worker.beat, RUNNING)
      const stuck = worker.tasks.find((task) => task.request.id === running)
      if (stuck !== undefined) this.#noteStopped(stuck.owner, now)
      void this.#terminate(worker, (task) => (task.request.id === running ? slowPatternError(task.request.spec.pattern, this.limitMs) : undefined))
    }
    if (lowered) this.#keepSpare()
  }

  #noteStopped(owner: string, now: number): void {
    for (const [other, at] of this.#stoppedAt) if (now - at >= STOPPED_OWNER_MS) this.#stoppedAt.delete(other)
    this.#stoppedAt.set(owner, now)
  }

  #lower(worker: PoolWorker): boolean {
    if (worker.threadId === undefined) return false
    worker.lowered = setThreadNice(worker.threadId, loweredNice(this.#normalNice))
    return worker.lowered
  }
}

let shared: GrepPool | undefined

/** The pool of the process, created on first use. */
export function grepPool(): GrepPool {
  shared ??= new GrepPool()
  return shared
}

/** Terminates the shared pool's workers (a later search starts new ones). */
export async function closeGrepPool(): Promise<void> {
  await shared?.close()
}
