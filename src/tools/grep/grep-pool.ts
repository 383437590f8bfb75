/**
 * @module The worker threads that do Grep's reading and matching, shared by every Grep call
 * of the process. A regular expression cannot be interrupted while it runs, so on the main
 * thread one catastrophic pattern (`(a+)+$`) would stop every session of the server; in a
 * worker it stops only that worker, which is terminated once it makes no progress for
 * MATCHING_LIMIT_MS (it adds to a shared counter at every chunk it reads), and replaced.
 *
 * Batches wait in one queue, first come first served; each worker holds at most two (one
 * running, one ready), so a terminated worker holds up little else: the batches of other
 * searches it held go back to the front of the queue. Workers start on the first search and
 * stay warm until they have been idle for IDLE_MS; an idle worker does not keep the process
 * alive. `close()` terminates them all (the server calls it on shutdown).
 */
import os from 'node:os'
import { Worker } from 'node:worker_threads'
import { FileToolError } from '../workspace.js'
import type { RecordedBatch } from './batch-recorder.js'
import type { BatchRequest, WorkerData, WorkerReply } from './worker-protocol.js'

/** Far above any sane stretch: the worker beats at every chunk it reads, of at most 16 MiB. */
export const MATCHING_LIMIT_MS = 2_000
export const MAX_GREP_WORKERS = 4
const BATCHES_PER_WORKER = 2
const WATCH_EVERY_MS = 100
const IDLE_MS = 30_000
const BEAT = 0
const RUNNING = 1
// Compiled (dist/), the worker is plain JavaScript; from the TypeScript source it is loaded
// through the .mjs shim, since a worker thread does not inherit tsx's or vitest's loader.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './grep-worker.mjs' : './grep-worker.js', import.meta.url)

export function slowPatternError(pattern: string, limitMs: number): FileToolError {
  return new FileToolError(
    'TOOL_ERR_PATTERN_TOO_SLOW',
    `The pattern ${JSON.stringify(pattern)} took more than ${limitMs} ms on one stretch of text and was stopped: it backtracks catastrophically (nested or adjacent quantifiers such as (a+)+ or .*.*). Simplify it, e.g. remove nested quantifiers or anchor it with literal text.`,
  )
}

interface Task {
  readonly request: BatchRequest
  resolve(batch: RecordedBatch): void
  reject(error: unknown): void
}

interface PoolWorker {
  readonly thread: Worker
  readonly beat: Int32Array
  readonly tasks: Task[]
  ready: boolean
  lastBeat: number
  lastProgressAt: number
  gone: boolean
}

export interface GrepPoolOptions {
  readonly size?: number
  readonly limitMs?: number
}

export class GrepPool {
  readonly size: number
  readonly limitMs: number
  readonly #workers: PoolWorker[] = []
  readonly #queue: Task[] = []
  #watch: NodeJS.Timeout | undefined
  #idle: NodeJS.Timeout | undefined
  #nextId = 0

  constructor(options: GrepPoolOptions = {}) {
    this.size = options.size ?? Math.min(MAX_GREP_WORKERS, Math.max(2, os.availableParallelism()))
    this.limitMs = options.limitMs ?? MATCHING_LIMIT_MS
  }

  /** Threads running now (for tests). */
  get threads(): number {
    return this.#workers.length
  }

  /** Searches one batch; rejects with TOOL_ERR_PATTERN_TOO_SLOW when its worker had to be stopped. */
  run(request: Omit<BatchRequest, 'id'>): Promise<RecordedBatch> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ request: { ...request, id: ++this.#nextId }, resolve, reject })
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
    for (let index = this.#queue.length - 1; index >= 0; index--) {
      const task = this.#queue[index] as Task
      if (task.request.spec.key !== key) continue
      this.#queue.splice(index, 1)
      task.reject(reason)
    }
    const holding = this.#workers.filter((worker) => worker.tasks.some((task) => task.request.spec.key === key))
    await Promise.all(holding.map((worker) => this.#terminate(worker, (task) => (task.request.spec.key === key ? reason : undefined))))
    this.#dispatch()
  }

  /** Terminates every worker; what was waiting or running is rejected. */
  async close(): Promise<void> {
    const closed = new Error('Grep was stopped: the server is shutting down')
    for (const task of this.#queue.splice(0)) task.reject(closed)
    await Promise.all([...this.#workers].map((worker) => this.#terminate(worker, () => closed)))
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const worker = this.#leastBusy()
      if (worker === undefined) break
      const task = this.#queue.shift() as Task
      if (worker.tasks.length === 0) worker.lastProgressAt = performance.now()
      worker.tasks.push(task)
      worker.thread.postMessage(task.request)
    }
    this.#updateTimers()
  }

  /** An idle worker first, a new one while there is room, else one with room for another batch. */
  #leastBusy(): PoolWorker | undefined {
    let best: PoolWorker | undefined
    for (const worker of this.#workers) if (best === undefined || worker.tasks.length < best.tasks.length) best = worker
    if ((best === undefined || best.tasks.length > 0) && this.#workers.length < this.size) return this.#spawn()
    return best !== undefined && best.tasks.length < BATCHES_PER_WORKER ? best : undefined
  }

  #spawn(): PoolWorker {
    const beat = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)
    const workerData: WorkerData = { beat }
    const thread = new Worker(WORKER_URL, { workerData })
    const worker: PoolWorker = { thread, beat: new Int32Array(beat), tasks: [], ready: false, lastBeat: 0, lastProgressAt: 0, gone: false }
    thread.on('message', (reply: WorkerReply) => this.#onReply(worker, reply))
    thread.on('error', (error) => void this.#terminate(worker, () => error))
    thread.on('exit', () => void this.#terminate(worker, () => new Error('A Grep worker thread exited unexpectedly')))
    this.#workers.push(worker)
    return worker
  }

  #onReply(worker: PoolWorker, reply: WorkerReply): void {
    if (reply.kind === 'ready') {
      worker.ready = true
      worker.lastProgressAt = performance.now()
      return
    }
    const task = worker.tasks.shift()
    if (task === undefined || task.request.id !== reply.id) throw new Error(`Grep worker replied to batch ${reply.id} out of order`)
    worker.lastProgressAt = performance.now()
    if (reply.kind === 'done') task.resolve(reply.batch)
    else task.reject(new Error(`Grep failed in a worker thread: ${reply.message}`))
    this.#dispatch()
  }

  /** Stops a worker; its tasks get `rejection(task)`, or go back to the front of the queue when that is undefined. */
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
    this.#queue.unshift(...requeue)
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
    for (const worker of [...this.#workers]) {
      if (!worker.ready || worker.tasks.length === 0) continue
      const beat = Atomics.load(worker.beat, BEAT)
      if (beat !== worker.lastBeat) {
        worker.lastBeat = beat
        worker.lastProgressAt = now
        continue
      }
      if (now - worker.lastProgressAt < this.limitMs) continue
      // The batch it is running is the one stuck; others it held go back to the queue.
      const running = Atomics.load(worker.beat, RUNNING)
      void this.#terminate(worker, (task) => (task.request.id === running ? slowPatternError(task.request.spec.pattern, this.limitMs) : undefined))
    }
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
