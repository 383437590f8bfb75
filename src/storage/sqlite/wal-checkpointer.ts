/**
 * @module WAL checkpoints off the event loop: a worker thread with its own connection runs
 * `PRAGMA wal_checkpoint(PASSIVE)` now and then, so the main connection (autocheckpoint
 * off) never copies pages and syncs the database file inside a commit. PASSIVE never
 * waits for or blocks the main connection; the worker never keeps the process alive.
 *
 * The WAL starts over from its beginning only when a write begins while every frame in it
 * has been copied. Under steady writes a checkpoint pass (a few ms, most of it fsync)
 * nearly always has a commit land in it, so that moment never comes and the file grows
 * without bound: hundreds of MB a minute, every frame written to a fresh page. So once
 * the WAL is large, the worker checkpoints pass after pass, and `writeGate` asks the
 * writer to hold its next commit until a pass has caught up (bounded by `maxHoldMs`).
 * That commit then starts the WAL over.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { Db } from './database.js'

const DEFAULT_INTERVAL_MS = 100
/** 4096 frames: about 16 MB of WAL. */
const DEFAULT_LARGE_WAL_FRAMES = 4096
const DEFAULT_MAX_HOLD_MS = 100

// Plain JavaScript evaluated in the worker, so it runs the same under tsc output, tsx and vitest.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file, { fileMustExist: true })
db.pragma('busy_timeout = 0')
let timer
let large = false
const checkpoint = () => {
  let pass
  try {
    pass = db.pragma('wal_checkpoint(PASSIVE)')[0]
  } catch {
    // Busy or locked: the next tick tries again.
  }
  const frames = pass === undefined ? 0 : pass.log
  // Every pass while the WAL is large, and the first one after, is reported.
  if (pass !== undefined && (large || frames > workerData.largeFrames)) parentPort.postMessage({ frames, checkpointed: pass.checkpointed })
  large = frames > workerData.largeFrames
  // Pass after pass only while there is something to copy: once caught up, a pass could take
  // the locks just as the held commit wants them to start the WAL over, and it would not.
  const behind = large && pass.checkpointed < frames
  timer = setTimeout(checkpoint, behind ? 0 : workerData.intervalMs)
}
timer = setTimeout(checkpoint, workerData.intervalMs)
parentPort.on('message', () => {
  clearTimeout(timer)
  db.close()
  parentPort.close()
})
`

export interface WalCheckpointer {
  /** A promise while the next commit should wait for a checkpoint pass to catch up; else undefined. */
  readonly writeGate: () => Promise<void> | undefined
  /** Stops the worker; the main connection checkpoints on its own close. */
  readonly stop: () => void
}

export interface WalCheckpointerOptions {
  readonly intervalMs?: number
  /** From this many frames on, the WAL is caught up before the next commit. */
  readonly largeWalFrames?: number
  readonly maxHoldMs?: number
}

interface PassReport {
  readonly frames: number
  readonly checkpointed: number
}

/** Holds commits from a report of a large WAL until a report of a pass that copied it all. */
class CommitHold {
  readonly #largeFrames: number
  readonly #maxHoldMs: number
  #held: { readonly promise: Promise<void>; readonly release: () => void } | undefined = undefined

  constructor(largeFrames: number, maxHoldMs: number) {
    this.#largeFrames = largeFrames
    this.#maxHoldMs = maxHoldMs
  }

  get promise(): Promise<void> | undefined {
    return this.#held?.promise
  }

  onPass(report: PassReport): void {
    if (this.#held !== undefined) {
      if (report.checkpointed >= report.frames) this.release()
    } else if (report.frames > this.#largeFrames) {
      this.#hold()
    }
  }

  release(): void {
    const held = this.#held
    this.#held = undefined
    held?.release()
  }

  #hold(): void {
    let release: () => void = () => {}
    const promise = new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.release(), this.#maxHoldMs)
      release = () => {
        clearTimeout(timer)
        resolve()
      }
    })
    this.#held = { promise, release }
  }
}

/** Turns autocheckpoint off on `db` and checkpoints its file from a worker thread. */
export function startWalCheckpointer(db: Db, options: WalCheckpointerOptions = {}): WalCheckpointer {
  if (db.memory) return { writeGate: () => undefined, stop: () => {} }
  const largeFrames = options.largeWalFrames ?? DEFAULT_LARGE_WAL_FRAMES
  const hold = new CommitHold(largeFrames, options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS)
  db.pragma('wal_autocheckpoint = 0')
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const workerData = { driver, file: db.name, intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS, largeFrames }
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData })
  worker.unref()
  worker.on('message', (report: PassReport) => hold.onPass(report))
  // A worker that cannot open the file leaves checkpoints to the main connection again.
  worker.on('error', () => {
    hold.release()
    if (db.open) db.pragma('wal_autocheckpoint = 1000')
  })
  let stopped = false
  return {
    writeGate: () => hold.promise,
    stop: () => {
      if (stopped) return
      stopped = true
      hold.release()
      worker.postMessage('stop')
    },
  }
}
