import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../../src/storage/sqlite/database.js'
import { startWalCheckpointer, type WalCheckpointer } from '../../src/storage/sqlite/wal-checkpointer.js'

let dir: string
let db: Db
let checkpointer: WalCheckpointer | undefined

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-wal-'))
  db = openDatabase(path.join(dir, 'toolexec.db'))
  db.exec('CREATE TABLE load (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
})

afterEach(() => {
  checkpointer?.stop()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

const walBytes = (): number => statSync(`${db.name}-wal`, { throwIfNoEntry: false })?.size ?? 0
/** The WAL header's checkpoint sequence and salts: a WAL that starts over from its beginning gets new ones. */
function walGeneration(): string {
  const header = Buffer.alloc(32)
  const fd = openSync(`${db.name}-wal`, 'r')
  try {
    readSync(fd, header, 0, 32, 0)
  } finally {
    closeSync(fd)
  }
  return header.subarray(12, 24).toString('hex')
}
const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Commits every `pauseMs` (0: as fast as the event loop turns), honouring the gate; returns the WAL's peak size. */
async function write(ms: number, gate: () => Promise<void> | undefined, pauseMs = 0): Promise<number> {
  const insert = db.prepare('INSERT INTO load (body) VALUES (?)')
  const commit = db.transaction(() => {
    for (let i = 0; i < 20; i++) insert.run('x'.repeat(500))
  })
  let peak = 0
  const end = performance.now() + ms
  while (performance.now() < end) {
    const shut = gate()
    if (shut !== undefined) await shut
    commit()
    peak = Math.max(peak, walBytes())
    await (pauseMs === 0 ? nextTick() : new Promise((resolve) => setTimeout(resolve, pauseMs)))
  }
  return peak
}

describe('WAL checkpointer', () => {
  it('keeps the WAL bounded under commits back to back: a held commit lets a checkpoint pass catch up, and the WAL starts over', async () => {
    // A hold released only by a pass that caught up (never by its time limit), however slow the machine.
    checkpointer = startWalCheckpointer(db, { intervalMs: 10, largeWalFrames: 256, maxHoldMs: 600_000 })
    const insert = db.prepare('INSERT INTO load (body) VALUES (?)')
    const commit = db.transaction(() => {
      for (let i = 0; i < 20; i++) insert.run('x'.repeat(500))
    })
    let commits = 0
    let restarts = 0
    let missedInARow = 0
    let mostMissedInARow = 0
    // Back to back (a turn of the event loop apart) until held commits started the WAL over 5 times.
    while (restarts < 5 && commits < 20_000) {
      const shut = checkpointer.writeGate()
      if (shut !== undefined) {
        const before = walGeneration()
        await shut
        commit()
        // A pass may hold its locks just as the commit comes (the worker is scheduled by a loaded machine): then the next hold does it.
        missedInARow = walGeneration() === before ? missedInARow + 1 : 0
        mostMissedInARow = Math.max(mostMissedInARow, missedInARow)
        if (missedInARow === 0) restarts++
      } else {
        commit()
      }
      commits++
      await nextTick()
    }
    // Held commits start the WAL over, so it stays near 256 frames plus what a pass or two lets through.
    expect(restarts).toBe(5)
    expect(mostMissedInARow).toBeLessThan(2)
  })

  it('never holds a commit while the WAL stays small (commits a few ms apart)', async () => {
    checkpointer = startWalCheckpointer(db, { intervalMs: 10 })
    let held = 0
    await write(
      300,
      () => {
        const shut = checkpointer?.writeGate()
        if (shut !== undefined) held++
        return shut
      },
      5,
    )
    expect(held).toBe(0)
  })

  it('an in-memory database has no checkpointer and no gate', () => {
    const memory = openDatabase(':memory:')
    const none = startWalCheckpointer(memory)
    expect(none.writeGate()).toBeUndefined()
    none.stop()
    memory.close()
  })
})
