/**
 * The journal on a full disk, with a real SQLite file made full by `max_page_count` (SQLite
 * answers SQLITE_FULL exactly as for a full file system): what already happened is kept and
 * written, in order, when space returns; what would begin new work is refused.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import type { SessionRecord } from '../../src/contracts/store.js'
import { createErrorResult } from '../../src/executor/errors.js'
import { EventBus } from '../../src/sessions/event-bus.js'
import { EventJournal } from '../../src/sessions/event-journal.js'
import { openDatabase } from '../../src/storage/sqlite/database.js'
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js'
import { StorageSpace } from '../../src/storage/storage-space.js'
import { tempDir } from '../support/temp-dirs.js'

let dir: string
let store: SqliteStore
let journal: EventJournal
let space: StorageSpace
let freeBytes: number

const ignore = (): void => {}
const record = (id: string): SessionRecord => ({ id, workspace: '/w', permissionMode: 'default', interactive: true, permissionTimeoutMs: null, createdAt: 'now' })
/** An event too large for the pages the database has left. */
const bigResult = (sessionId: string, callId: string): ExecutorEvent => ({
  type: 'ToolCallResult',
  sessionId,
  callId,
  toolName: 'Big',
  result: createErrorResult({ callId, toolName: 'Big', status: 'failed', stage: 'handler', errorClass: 'exception', message: 'x'.repeat(200_000) }),
})
const end = (sessionId: string, scheduleId: string): ExecutorEvent => ({ type: 'ScheduleCompleted', sessionId, scheduleId, status: 'completed' })
const start = (sessionId: string, callId: string): ExecutorEvent => ({
  type: 'ToolCallStarted',
  sessionId,
  callId,
  toolName: 'Big',
  input: 'y'.repeat(200_000),
  flags: { readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none', alwaysAsk: false, requiresUserInteraction: false, dependencies: [] },
})

function fillDatabase(): void {
  const pages = store.db.pragma('page_count', { simple: true }) as number
  store.db.pragma(`max_page_count = ${pages}`)
  freeBytes = 0
}

function freeDatabase(): void {
  store.db.pragma('max_page_count = 1073741823')
  freeBytes = Number.MAX_SAFE_INTEGER
}

const storedTypes = async (sessionId: string): Promise<string[]> => (await store.events.after(sessionId, 0, 1000)).map((event) => `${event.seq}:${event.type}`)

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

beforeEach(async () => {
  dir = await tempDir('journal-full')
  store = new SqliteStore(openDatabase(path.join(dir, 'toolexec.db')))
  freeBytes = Number.MAX_SAFE_INTEGER
  space = new StorageSpace(dir, { freeBytes: () => freeBytes })
  journal = new EventJournal(store, new EventBus(), undefined, space)
  await store.commit((unit) => {
    unit.sessions.insert(record('s1'))
    unit.sessions.insert(record('s2'))
  })
})

afterEach(async () => {
  await journal.close()
  store.db.close()
  await rm(dir, { recursive: true, force: true })
})

describe('EventJournal on a full disk', () => {
  it('keeps a result it cannot write, resolves an ensured append once it is kept, and writes both in order when space returns', async () => {
    await journal.append({ type: 'BatchStarted', sessionId: 's1', batchIndex: 0, callIds: ['c1'] })
    fillDatabase()
    const result = journal.append(bigResult('s1', 'c1'))
    const ended = journal.appendEnsured(end('s1', 'sch1'))
    await ended
    expect(journal.keptCount).toBe(2)
    expect(journal.keptResults()).toEqual(new Set(['s1 c1']))
    expect(journal.keptScheduleEnds('s1')).toEqual(new Set(['sch1']))
    expect(space.full).toBe(true)
    expect(await storedTypes('s1')).toEqual(['1:BatchStarted'])

    freeDatabase()
    // Written by the journal's own retry: nothing else is appended meanwhile.
    await expect(result).resolves.toMatchObject({ seq: 2, type: 'ToolCallResult' })
    await until('the kept writes written', () => journal.keptCount === 0)
    expect(await storedTypes('s1')).toEqual(['1:BatchStarted', '2:ToolCallResult', '3:ScheduleCompleted'])
    await until('room for new work again', () => !space.full)
  })

  it('writes what it kept at the next commit, before the new event', async () => {
    fillDatabase()
    journal.append(bigResult('s1', 'c1')).catch(ignore)
    await until('the result kept', () => journal.keptCount === 1)
    freeDatabase()
    const next = await journal.append({ type: 'BatchCompleted', sessionId: 's1', batchIndex: 0, callIds: ['c1'], stopTurn: false })
    expect(next.seq).toBe(2)
    expect(await storedTypes('s1')).toEqual(['1:ToolCallResult', '2:BatchCompleted'])
  })

  it('refuses a start, a guarded request and progress with API_ERR_STORAGE_FULL naming the data directory, and keeps none of them', async () => {
    fillDatabase()
    const refused = [
      journal.appendEnsured(start('s1', 'c1')),
      journal.appendGuarded(bigResult('s2', 'c2'), (unit) => unit.sessions.insert(record('s3'))),
      journal.append({ type: 'ToolCallProgress', sessionId: 's1', callId: 'c1', toolName: 'Big', progress: { tail: 'z'.repeat(200_000) } }),
    ]
    for (const outcome of await Promise.allSettled(refused)) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'API_ERR_STORAGE_FULL', message: expect.stringContaining(dir) as unknown } })
    }
    expect(journal.keptCount).toBe(0)
    freeDatabase()
    await journal.flush()
    expect(await storedTypes('s1')).toEqual([])
    expect(await store.sessions.get('s3')).toBeUndefined()
  })

  it('refuses appendNow while writes are kept, rather than number it before them', async () => {
    fillDatabase()
    journal.append(bigResult('s1', 'c1')).catch(ignore)
    await until('the result kept', () => journal.keptCount === 1)
    await expect(journal.appendNow({ type: 'BatchStarted', sessionId: 's1', batchIndex: 1, callIds: [] })).rejects.toMatchObject({ code: 'API_ERR_STORAGE_FULL' })
  })

  it('writeOrKeep writes a change at once, or keeps it for when space returns', async () => {
    await journal.writeOrKeep('s1', (unit, at) => unit.schedules.markAborted('s1', at))
    fillDatabase()
    journal.append(bigResult('s1', 'c1')).catch(ignore)
    await until('the result kept', () => journal.keptCount === 1)
    await journal.writeOrKeep('s4', (unit) => unit.sessions.insert({ ...record('s4'), workspace: 'w'.repeat(200_000) }))
    expect(await store.sessions.get('s4')).toBeUndefined()
    freeDatabase()
    await until('the kept writes written', async () => journal.keptCount === 0 && (await store.sessions.get('s4')) !== undefined)
  })

  it("forgets a deleted session's kept writes and keeps the others'", async () => {
    fillDatabase()
    journal.append(bigResult('s1', 'c1')).catch(ignore)
    const other = journal.append(bigResult('s2', 'c2'))
    await until('both kept', () => journal.keptCount === 2)
    journal.forget('s1')
    expect(journal.keptResults()).toEqual(new Set(['s2 c2']))
    freeDatabase()
    await expect(other).resolves.toMatchObject({ seq: 1 })
    expect(await storedTypes('s1')).toEqual([])
  })

  it('at close, still full, rejects what it kept with API_ERR_STORAGE_FULL', async () => {
    fillDatabase()
    const kept = journal.append(bigResult('s1', 'c1'))
    await until('the result kept', () => journal.keptCount === 1)
    await journal.close()
    await expect(kept).rejects.toMatchObject({ code: 'API_ERR_STORAGE_FULL' })
    expect(journal.keptCount).toBe(0)
  })
})
