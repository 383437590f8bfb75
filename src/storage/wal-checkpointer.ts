/**
 * @module WAL checkpoints off the event loop: a worker thread with its own connection runs
 * `PRAGMA wal_checkpoint(PASSIVE)` now and then, so the main connection (autocheckpoint
 * off) never copies pages and syncs the database file inside a commit. PASSIVE never
 * waits for or blocks the main connection; the worker never keeps the process alive.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { Db } from './database.js'

const DEFAULT_INTERVAL_MS = 100

// Plain JavaScript evaluated in the worker, so it runs the same under tsc output, tsx and vitest.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file, { fileMustExist: true })
db.pragma('busy_timeout = 0')
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch {
    // Busy or locked: the next tick tries again.
  }
}
const timer = setInterval(checkpoint, workerData.intervalMs)
parentPort.on('message', () => {
  clearInterval(timer)
  db.close()
  parentPort.close()
})
`

export interface WalCheckpointer {
  /** Stops the worker; the main connection checkpoints on its own close. */
  stop(): void
}

/** Turns autocheckpoint off on `db` and checkpoints its file from a worker thread. */
export function startWalCheckpointer(db: Db, intervalMs = DEFAULT_INTERVAL_MS): WalCheckpointer {
  if (db.memory) return { stop: () => {} }
  db.pragma('wal_autocheckpoint = 0')
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file: db.name, intervalMs } })
  worker.unref()
  // A worker that cannot open the file leaves checkpoints to the main connection again.
  worker.on('error', () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000')
  })
  let stopped = false
  return {
    stop: () => {
      if (stopped) return
      stopped = true
      worker.postMessage('stop')
    },
  }
}
