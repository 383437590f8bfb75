import { rm } from 'node:fs/promises'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import { CommitUnknownError, type SessionRecord, type StoredEvent, type UnitOfWork } from '../../src/contracts/store.js'
import { ToolexecError } from '../../src/contracts/errors.js'
import { EventBus } from '../../src/sessions/event-bus.js'
import { EventJournal, type StateChange } from '../../src/sessions/event-journal.js'
import { openDatabase } from '../../src/storage/sqlite/database.js'
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js'
import { tempDir } from '../support/temp-dirs.js'

let dir: string
let file: string
let store: SqliteStore
let bus: EventBus
let journal: EventJournal
/** A second connection: what another process (or a restart) would read. */
let reader: Database.Database

beforeEach(async () => {
  dir = await tempDir('journal')
  file = path.join(dir, 'toolexec.db')
  store = new SqliteStore(openDatabase(file))
  bus = new EventBus()
  journal = new EventJournal(store, bus)
  reader = new Database(file, { readonly: true })
})

afterEach(async () => {
  reader.close()
  store.db.close()
  await rm(dir, { recursive: true, force: true })
})

const batch = (sessionId: string, batchIndex: number): ExecutorEvent => ({ type: 'BatchStarted', sessionId, batchIndex, callIds: [`c${batchIndex}`] })
const record = (id: string): SessionRecord => ({ id, workspace: '/w', permissionMode: 'default', interactive: true, permissionTimeoutMs: null, createdAt: 'now' })
const insertSession =
  (id: string): StateChange =>
  (unit) =>
    unit.sessions.insert(record(id))
const failing: StateChange = () => {
  throw new Error('change failed')
}
/** Inserts a row and then throws: a rollback must take the row back too. */
const halfDone =
  (id: string): StateChange =>
  (unit) => {
    unit.sessions.insert(record(id))
    throw new Error('change failed halfway')
  }

const committedSeqs = (sessionId: string): number[] => reader.prepare('SELECT seq FROM events WHERE session_id = ? ORDER BY seq').pluck().all(sessionId) as number[]
const committedSession = (id: string): boolean => reader.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) !== undefined
const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

function listen(sessionId: string): StoredEvent[] {
  const seen: StoredEvent[] = []
  bus.subscribe(sessionId, (event) => seen.push(event))
  return seen
}

describe('EventJournal', () => {
  it('numbers each session on its own, 1, 2, 3, ... with no gaps, and stores the JSON line {type, sessionId, seq, at, ...}', async () => {
    const appended = await Promise.all([batch('a', 0), batch('b', 0), batch('a', 1), batch('a', 2), batch('b', 1)].map((event) => journal.append(event)))
    expect(appended.map((event) => `${event.sessionId}${event.seq}`)).toEqual(['a1', 'b1', 'a2', 'a3', 'b2'])
    await journal.append(batch('a', 3))
    expect(committedSeqs('a')).toEqual([1, 2, 3, 4])
    expect(committedSeqs('b')).toEqual([1, 2])
    const data = JSON.parse((await store.events.after('a', 1, 1))[0]?.data ?? '{}') as Record<string, unknown>
    expect(Object.keys(data)).toEqual(['type', 'sessionId', 'seq', 'at', 'batchIndex', 'callIds'])
    expect(data).toMatchObject({ type: 'BatchStarted', sessionId: 'a', seq: 2, batchIndex: 1, callIds: ['c1'] })
  })

  it('continues after the last stored seq when a new journal opens the same database', async () => {
    await Promise.all([journal.append(batch('a', 0)), journal.append(batch('a', 1))])
    const restarted = new EventJournal(store, new EventBus())
    expect(await restarted.lastSeq('a')).toBe(2)
    expect((await restarted.append(batch('a', 2))).seq).toBe(3)
  })

  it('writes a state change and its event in one transaction, committed before any subscriber sees the event', async () => {
    const seenCommitted: [boolean, number[]][] = []
    bus.subscribe('a', (event) => seenCommitted.push([committedSession('a'), committedSeqs('a').filter((seq) => seq === event.seq)]))
    const stored = await journal.append(batch('a', 0), insertSession('a'))
    expect(stored.seq).toBe(1)
    expect(seenCommitted).toEqual([[true, [1]]])
  })

  it.each([
    ['append', (event: ExecutorEvent, change: StateChange) => journal.append(event, change)],
    ['appendNow', (event: ExecutorEvent, change: StateChange) => new Promise<StoredEvent>((resolve) => resolve(journal.appendNow(event, change)))],
    ['appendGuarded', (event: ExecutorEvent, change: StateChange) => journal.appendGuarded(event, change)],
  ])('a change that throws in %s writes neither the event nor the change, and the seq does not advance', async (_how, write) => {
    await journal.append(batch('a', 0))
    const seen = listen('a')
    await expect(write(batch('a', 1), halfDone('ghost'))).rejects.toThrow('change failed halfway')
    expect(committedSession('ghost')).toBe(false)
    expect(committedSeqs('a')).toEqual([1])
    expect(await journal.lastSeq('a')).toBe(1)
    expect(seen).toEqual([])
    expect((await journal.append(batch('a', 2))).seq).toBe(2)
    expect(committedSeqs('a')).toEqual([1, 2])
  })

  it("appends of one tick share one transaction: one failing change takes its session's appends of the tick back, other sessions' commit, later ticks are untouched", async () => {
    const results = await Promise.allSettled([journal.append(batch('a', 0), insertSession('s1')), journal.append(batch('b', 0)), journal.append(batch('a', 1), failing)])
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'rejected'])
    expect(committedSession('s1')).toBe(false)
    expect(committedSeqs('a')).toEqual([])
    // A session whose lease another server took is refused this way in a cluster: the others' appends are not its to lose.
    expect(committedSeqs('b')).toEqual([1])

    const ok = journal.append(batch('a', 0), insertSession('s1'))
    await nextTick()
    const bad = journal.append(batch('a', 1), failing)
    await expect(ok).resolves.toMatchObject({ seq: 1 })
    await expect(bad).rejects.toThrow('change failed')
    expect(committedSession('s1')).toBe(true)
    expect(committedSeqs('a')).toEqual([1])
  })

  it('appendNow writes after everything queued and returns its stored event, delivered in seq order', async () => {
    const seen = listen('a')
    const first = journal.append(batch('a', 0))
    const second = journal.append(batch('a', 1), insertSession('made-before'))
    const now = await journal.appendNow(batch('a', 2))
    expect(now.seq).toBe(3)
    expect(committedSeqs('a')).toEqual([1, 2, 3])
    expect(committedSession('made-before')).toBe(true)
    expect([(await first).seq, (await second).seq]).toEqual([1, 2])
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3])
    await journal.flush()
    expect(committedSeqs('a')).toEqual([1, 2, 3])
  })

  it('a failing appendNow does not take back the appends queued before it', async () => {
    const queued = journal.append(batch('b', 0), insertSession('other'))
    await expect(journal.appendNow(batch('a', 0), failing)).rejects.toThrow('change failed')
    await expect(queued).resolves.toMatchObject({ sessionId: 'b', seq: 1 })
    expect(committedSession('other')).toBe(true)
    expect(committedSeqs('b')).toEqual([1])
    expect(committedSeqs('a')).toEqual([])
    expect((await journal.appendNow(batch('a', 1))).seq).toBe(1)
  })

  it("a guarded append shares the tick's commit, and when its change throws only it fails", async () => {
    const seen = listen('a')
    const before = journal.append(batch('a', 0), insertSession('s-before'))
    const guardedBad = journal.appendGuarded(batch('a', 1), halfDone('ghost'))
    const guardedOk = journal.appendGuarded(batch('a', 2), insertSession('s-guarded'))
    const after = journal.append(batch('a', 3))
    await expect(guardedBad).rejects.toThrow('change failed halfway')
    expect([(await before).seq, (await guardedOk).seq, (await after).seq]).toEqual([1, 2, 3])
    expect(committedSession('ghost')).toBe(false)
    expect(committedSession('s-before')).toBe(true)
    expect(committedSession('s-guarded')).toBe(true)
    expect(committedSeqs('a')).toEqual([1, 2, 3])
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3])
  })

  it('guarded appends of one tick commit once, all together', async () => {
    let commits = 0
    const commit = store.commit.bind(store)
    store.commit = <T>(build: (unit: UnitOfWork) => T): Promise<T> => {
      commits++
      return commit(build)
    }
    const appends = ['g1', 'g2', 'g3'].map((id, i) => journal.appendGuarded(batch('a', i), insertSession(id)))
    expect((await Promise.all(appends)).map((event) => event.seq)).toEqual([1, 2, 3])
    expect(commits).toBe(1)
    expect(['g1', 'g2', 'g3'].map(committedSession)).toEqual([true, true, true])
  })

  it('a guarded append whose commit landed but lost its answer waits and resolves with what landed; one refused before it was sent is rejected', async () => {
    const commit = store.commit.bind(store)
    const lost = (cause?: Error): ToolexecError => new ToolexecError('API_ERR_STORAGE_UNAVAILABLE', ['the connection ended'], cause === undefined ? {} : { cause })
    let fail: 'after' | 'before' | undefined = 'after'
    store.commit = async <T>(build: (unit: UnitOfWork) => T): Promise<T> => {
      const how = fail
      fail = undefined
      if (how === 'before') throw lost()
      const value = await commit(build)
      if (how === 'after') throw lost(new CommitUnknownError('the connection ended'))
      return value
    }
    const landed = await journal.appendGuarded(batch('a', 0), insertSession('s-landed'))
    expect(landed.seq).toBe(1)
    expect(committedSeqs('a')).toEqual([1])
    expect(committedSession('s-landed')).toBe(true)
    fail = 'before'
    await expect(journal.appendGuarded(batch('a', 1), insertSession('s-refused'))).rejects.toMatchObject({ code: 'API_ERR_STORAGE_UNAVAILABLE' })
    expect(committedSession('s-refused')).toBe(false)
  })

  it('once starts are held, a start already queued is held too, and rejected at close, while the rest of its tick is written', async () => {
    const start: ExecutorEvent = {
      type: 'ToolCallStarted',
      sessionId: 'a',
      callId: 'c1',
      toolName: 'Sleep',
      input: {},
      flags: { readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none', alwaysAsk: false, requiresUserInteraction: false, dependencies: [] },
    }
    const queuedStart = journal.append(start)
    const queuedBatch = journal.append(batch('a', 0))
    journal.holdStarts()
    expect((await queuedBatch).seq).toBe(1)
    await journal.close()
    await expect(queuedStart).rejects.toMatchObject({ code: 'API_ERR_SHUTTING_DOWN' })
    expect(committedSeqs('a')).toEqual([1])
  })
})
