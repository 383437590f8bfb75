import { mkdtempSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../../src/storage/database.js'
import { startWalCheckpointer, type WalCheckpointer } from '../../src/storage/wal-checkpointer.js'

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
    checkpointer = startWalCheckpointer(db, { intervalMs: 10, largeWalFrames: 256 })
    const peak = await write(1_500, () => checkpointer?.writeGate())
    expect(db.prepare('SELECT count(*) FROM load').pluck().get()).toBeGreaterThan(1000)
    // The same loop ungated, just after, on the same machine (its load changes how much a
    // held commit lets through): the WAL grows past 200 MB on a quiet machine; gated it
    // stays near 1 MB plus what is written while one pass catches up.
    const ungated = await write(1_500, () => undefined)
    expect(peak).toBeLessThan(ungated / 4)
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
