/**
 * @module One server per data directory. The lock is SQLite's own file lock (fcntl) on
 * `toolexec.lock`, held in exclusive locking mode from a write transaction until the
 * connection closes: the kernel drops it with the process, kill -9 included, so there is no
 * stale lock to guess about. SQLite also refuses a second connection of the same process.
 * The holder's PID is written beside it, once the lock is held, for the refusal to name.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { StartupError } from '../contracts/errors.js'

export const LOCK_FILE = 'toolexec.lock'
export const PID_FILE = 'toolexec.pid'

export interface DataDirLock {
  /** Lets the next server in; idempotent. */
  release(): void
}

/** Throws a StartupError naming the directory and the holder's PID when another server holds it. */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true })
  const db = new Database(path.join(dataDir, LOCK_FILE), { timeout: 0 })
  try {
    db.pragma('locking_mode = EXCLUSIVE')
    // The first write takes the exclusive lock; in this mode it is kept after COMMIT.
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY); COMMIT')
  } catch (error) {
    db.close()
    if (isBusy(error)) throw new StartupError('STORE_ERR_DATA_DIR_LOCKED', [dataDir, holderPid(dataDir)])
    throw error
  }
  const pidFile = path.join(dataDir, PID_FILE)
  writeFileSync(`${pidFile}.tmp`, `${process.pid}\n`)
  renameSync(`${pidFile}.tmp`, pidFile)
  let held = true
  return {
    release: () => {
      if (!held) return
      held = false
      // Before the lock goes: removed after, it could be the next holder's file.
      rmSync(pidFile, { force: true })
      db.close()
    },
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED'
}

function holderPid(dataDir: string): string {
  let text: string
  try {
    text = readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim()
  } catch {
    return 'unknown'
  }
  if (!/^\d+$/.test(text)) return 'unknown'
  return Number(text) === process.pid ? `${text}, this process` : text
}
