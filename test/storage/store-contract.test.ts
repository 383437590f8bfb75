/**
 * The Store port's contract (src/contracts/store.ts), proved through the port alone. The file
 * runs in both vitest projects: on SQLite (the data directory's file) and on PostgreSQL (a
 * fresh database of the run's private server), so every promise here is kept by both.
 */
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NewBackgroundTask } from '../../src/contracts/background-task-record.js'
import {
  StoreConflictError,
  type ArtifactRecord,
  type KeyRecord,
  type NewPermission,
  type OpenedStore,
  type SessionRecord,
  type Store,
  type StoredEvent,
  type UnitOfWork,
} from '../../src/contracts/store.js'
import { openStore } from '../../src/storage/open-store.js'
import { readPostgresMigrations } from '../../src/storage/postgres/migrations.js'
import { readMigrations } from '../../src/storage/sqlite/database.js'
import { rowCounts } from '../support/row-counts.js'
import { tempDir } from '../support/temp-dirs.js'
import { dropDatabase, freshDatabaseUrl, testBackend } from '../support/test-database.js'
import { sessionRecord, STORE_TEST_AT, succeededResult, toolFlags } from '../support/store-records.js'

const logger = pino({ level: 'silent' })

let dataDir: string
let databaseUrl: string | undefined
let opened: OpenedStore
let store: Store

/** Closes the store and opens it again on the same data directory or database. */
async function reopen(): Promise<void> {
  await opened.close()
  opened = await openStore({ dataDir, databaseUrl, logger })
  store = opened.store
}

const counts = (): Promise<Record<string, number>> => rowCounts({ dataDir, databaseUrl })

const AT = STORE_TEST_AT
const at = (second: number): string => `2026-01-02T03:04:${String(second).padStart(2, '0')}.000Z`

/** Byte-wise order of the texts' UTF-8, which both backends keep (JavaScript's own sort is by UTF-16 units). */
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

// Ids whose UTF-16 order differs from their UTF-8 order (the astral one), with upper and lower case, and accents.
const TRICKY_IDS = ['a', 'B', 'b', '_', 'é', 'Z', '\u{1D7D8}', '\uFF5E', '0']

const session = sessionRecord

const FLAGS = toolFlags({ destructive: true })

const result = succeededResult

/** A session (made when missing) with one queued schedule of `calls` (ids), all pending. */
async function scheduleWith(sessionId: string, scheduleId: string, calls: string[], createdAt = AT): Promise<void> {
  const known = (await store.sessions.get(sessionId)) !== undefined
  await store.commit((u) => {
    if (!known) u.sessions.insert(session(sessionId))
    u.schedules.insert({ id: scheduleId, sessionId, turnId: `turn-${scheduleId}`, status: 'queued', groups: calls.map((id) => [id]), createdAt })
    calls.forEach((id, position) => u.schedules.insertCall({ sessionId, id, scheduleId, position, name: 'Edit', input: { file_path: `${id}.txt` } }))
  })
}

function permission(id: string, sessionId: string, callId: string, createdAt = AT): NewPermission {
  return { id, sessionId, callId, toolName: 'Bash', input: { command: 'ls' }, preview: undefined, riskLevel: 'medium', reason: 'runs a command', suggestedRule: null, createdAt }
}

function artifact(id: string, sessionId: string, callId: string, bytes: number): ArtifactRecord {
  return { id, sessionId, callId, path: `/data/artifacts/${id}`, uri: `toolexec://artifacts/${id}`, bytes, mediaType: 'text/plain', retention: 'session', sha256: 'ab'.repeat(32) }
}

function eventOf(sessionId: string, seq: number, data: string): StoredEvent {
  return { sessionId, seq, type: 'ToolCallResult', data }
}

function backgroundTask(id: string, sessionId: string, callId: string, startedAt = AT): NewBackgroundTask {
  return { sessionId, id, callId, command: 'sleep 300', description: 'waits', nodeId: 'node-a', outputPath: `/data/artifacts/${id}.tmp`, startedAt }
}

const DENIED = { status: 'deny', decidedBy: 'user', message: null, scope: null, decidedAt: AT } as const

describe(`Store contract on ${testBackend()}`, () => {
  beforeEach(async () => {
    dataDir = await tempDir('store-contract')
    databaseUrl = await freshDatabaseUrl()
    opened = await openStore({ dataDir, databaseUrl, logger })
    store = opened.store
  })

  afterEach(async () => {
    await opened.close()
    if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
  })

  describe('sessions', () => {
    it('come back as stored, every field, the sandbox and four eyes included; an unknown id is undefined; the mode changes at once', async () => {
      const plain = session('plain')
      const full = session('full', {
        permissionMode: 'bypassPermissions',
        interactive: false,
        permissionTimeoutMs: 90_000,
        sandbox: { readOnlyPaths: ['/opt/ro'], writablePaths: ['/tmp/w'], network: true },
        fourEyes: true,
      })
      await store.commit((u) => {
        u.sessions.insert(plain)
        u.sessions.insert(full)
      })
      expect(await store.sessions.get('plain')).toEqual(plain)
      expect(await store.sessions.get('full')).toEqual(full)
      expect(await store.sessions.get('missing')).toBeUndefined()
      expect((await store.sessions.ids()).sort()).toEqual(['full', 'plain'])

      // setPermissionMode changes what get reads once it committed, a session read before included.
      await store.commit((u) => u.sessions.insert(session('s')))
      expect((await store.sessions.get('s'))?.permissionMode).toBe('default')
      await store.commit((u) => u.sessions.setPermissionMode('s', 'plan'))
      expect((await store.sessions.get('s'))?.permissionMode).toBe('plan')
    })

    it('page goes newest first, ties on creation broken by id in byte order; counts counts one session only', async () => {
      await store.commit((u) => {
        for (const id of TRICKY_IDS) u.sessions.insert(session(id, { createdAt: at(1) }))
        u.sessions.insert(session('older', { createdAt: at(0) }))
        u.sessions.insert(session('newer', { createdAt: at(2) }))
      })
      const expected = ['newer', ...[...TRICKY_IDS].sort(byteOrder).reverse(), 'older']
      expect((await store.sessions.page(undefined, 100)).map((s) => s.id)).toEqual(expected)
      const pages: string[] = []
      let before: SessionRecord | undefined
      for (;;) {
        const page = await store.sessions.page(before, 3)
        if (page.length === 0) break
        expect(page.length).toBeLessThanOrEqual(3)
        pages.push(...page.map((s) => s.id))
        before = page[page.length - 1]
      }
      expect(pages).toEqual(expected)
      expect((await store.sessions.page(undefined, 1))[0]).toEqual(session('newer', { createdAt: at(2) }))

      // counts counts the schedules, calls and pending permissions of one session only.
      expect(await store.sessions.counts('none')).toEqual({ schedules: 0, calls: 0, pendingPermissions: 0 })
      await scheduleWith('s', 'sch-1', ['c1', 'c2'])
      await scheduleWith('s', 'sch-2', ['c3'])
      await scheduleWith('other', 'sch-3', ['c1'])
      await store.commit((u) => {
        u.approvals.insert(permission('p1', 's', 'c1'))
        u.approvals.insert(permission('p2', 's', 'c2'))
        u.approvals.decide('p2', DENIED)
        u.approvals.insert(permission('p3', 'other', 'c1'))
      })
      expect(await store.sessions.counts('s')).toEqual({ schedules: 2, calls: 3, pendingPermissions: 1 })
    })

    it('delete removes every row of the session and no other; pathsOfSession gives its artifact files first', async () => {
      for (const id of ['gone', 'kept']) {
        await store.commit((u) => u.sessions.insert(session(id, { sandbox: { network: false }, fourEyes: true })))
        await scheduleWith(id, `sch-${id}`, ['c1'])
        await store.commit((u) => {
          u.schedules.markCallRunning(id, 'c1', { file_path: 'other.txt' }, FLAGS, AT)
          u.schedules.completeCall(id, result('c1', 'done'), AT)
          u.approvals.insert(permission(`p-${id}`, id, 'c1'))
          u.approvals.decide(`p-${id}`, { ...DENIED, deciderId: 'key_1', deciderName: 'reviewer' })
          u.approvals.insertGrant(id, 'Bash', 'ls', AT)
          u.sessions.setTodos(id, [{ content: 'x' }], AT)
          u.artifacts.insert(artifact(`a1-${id}`, id, 'c1', 10), AT)
          u.artifacts.insert(artifact(`a2-${id}`, id, 'c1', 20), AT)
          u.events.insert(eventOf(id, 1, '{}'), AT)
          u.schedules.insert({ id: `open-${id}`, sessionId: id, turnId: 't', status: 'open', groups: [], createdAt: AT })
          u.schedules.markAborted(id, AT)
          u.tasks.insert(backgroundTask(`bash_${id}`, id, 'c1'))
          u.schedules.insertCall({ sessionId: id, id: 'c9', scheduleId: `sch-${id}`, position: 9, name: 'Read', input: {}, scheduledBy: 'key_1' })
        })
      }
      const before = await counts()
      expect((await store.artifacts.pathsOfSession('gone')).sort()).toEqual(['/data/artifacts/a1-gone', '/data/artifacts/a2-gone'])
      await store.commit((u) => u.sessions.delete('gone'))
      expect(await store.sessions.get('gone')).toBeUndefined()
      expect(await store.sessions.ids()).toEqual(['kept'])
      const after = await counts()
      // What is kept of its permission requests is their ids: a late decision is told the session was deleted.
      for (const [table, count] of Object.entries(before)) expect([table, after[table]]).toEqual([table, table === 'closed_permissions' ? 1 : count / 2])
      expect([await store.approvals.closedSession('p-gone'), await store.approvals.closedSession('p-kept')]).toEqual(['gone', undefined])
      expect(await store.events.lastSeq('gone')).toBe(0)
      expect(await store.sessions.todos('gone')).toBeUndefined()
      expect(await store.artifacts.pathsOfSession('gone')).toEqual([])
      expect(await store.artifacts.pathsOfSession('kept')).toHaveLength(2)
      expect((await store.sessions.get('kept'))?.sandbox).toEqual({ network: false })
      expect(await store.tasks.get('gone', 'bash_gone')).toBeUndefined()
      expect(await store.tasks.running()).toMatchObject([{ sessionId: 'kept', id: 'bash_kept' }])
      // Deleting a session that is not there deletes nothing.
      await store.commit((u) => u.sessions.delete('gone'))
      expect(await counts()).toEqual(after)
    })
  })

  describe('schedules', () => {
    it('count arrivals per session and come back as stored; aborts mark the unfinished ones of one session', async () => {
      await scheduleWith('a', 'sch-1', ['c1', 'c2'])
      await scheduleWith('a', 'sch-2', [])
      await scheduleWith('b', 'sch-3', [])
      expect(await store.schedules.get('sch-1')).toEqual({
        id: 'sch-1',
        sessionId: 'a',
        turnId: 'turn-sch-1',
        arrival: 1,
        status: 'queued',
        groups: [['c1'], ['c2']],
        createdAt: AT,
        completedAt: null,
      })
      expect((await store.schedules.get('sch-2'))?.arrival).toBe(2)
      expect((await store.schedules.get('sch-3'))?.arrival).toBe(1)
      expect(await store.schedules.get('missing')).toBeUndefined()

      // markAborted marks the unfinished schedules of the session only, and may be repeated.
      await scheduleWith('x', 'x-1', [])
      await scheduleWith('x', 'x-2', [])
      await scheduleWith('y', 'y-1', [])
      await store.commit((u) => u.schedules.setStatus('x-2', 'completed', AT))
      await store.commit((u) => u.schedules.markAborted('x', AT))
      await store.commit((u) => u.schedules.markAborted('x', at(1)))
      expect(await store.schedules.aborted('x-1')).toBe(true)
      expect(await store.schedules.aborted('x-2')).toBe(false)
      expect(await store.schedules.aborted('y-1')).toBe(false)
      expect(await store.schedules.aborted('missing')).toBe(false)
      expect((await counts()).schedule_aborts).toBe(1)
    })

    it('arrivals count on within one unit; status, end time and groups change; unfinished ones are listed by session, oldest arrival first', async () => {
      await scheduleWith('b', 'b-1', [])
      await store.commit((u) => {
        u.sessions.insert(session('a'))
        for (const id of ['a-1', 'a-2', 'a-3']) u.schedules.insert({ id, sessionId: 'a', turnId: 't', status: 'queued', groups: [], createdAt: AT })
      })
      expect((await store.schedules.get('a-3'))?.arrival).toBe(3)
      await store.commit((u) => {
        u.schedules.setGroups('a-2', [['x', 'y'], ['z']])
        u.schedules.setStatus('a-1', 'running', null)
        u.schedules.setStatus('a-3', 'completed', at(9))
      })
      expect((await store.schedules.get('a-2'))?.groups).toEqual([['x', 'y'], ['z']])
      expect((await store.schedules.get('a-1'))?.status).toBe('running')
      expect(await store.schedules.get('a-3')).toMatchObject({ status: 'completed', completedAt: at(9) })
      expect((await store.schedules.unfinished()).map((s) => s.id)).toEqual(['a-1', 'a-2', 'b-1'])
      expect((await store.schedules.unfinishedIdsOf('a')).sort()).toEqual(['a-1', 'a-2'])
      await store.commit((u) => u.schedules.setStatus('b-1', 'cancelled', at(10)))
      expect(await store.schedules.unfinishedIdsOf('b')).toEqual([])
      expect(await store.schedules.unfinishedIdsOf('nobody')).toEqual([])
    })

    it("one unit's schedules of several sessions arrive after each session's last, in the unit's order; one whose groups or abort share the unit keeps its place", async () => {
      await scheduleWith('a', 'a-1', [])
      const insert = (u: UnitOfWork, id: string, sessionId: string): void => u.schedules.insert({ id, sessionId, turnId: 't', status: 'queued', groups: [], createdAt: AT })
      await store.commit((u) => {
        u.sessions.insert(session('b'))
        for (const [id, sessionId] of [
          ['a-2', 'a'],
          ['b-1', 'b'],
          ['a-3', 'a'],
          ['b-2', 'b'],
          ['a-4', 'a'],
        ] as const)
          insert(u, id, sessionId)
      })
      const arrivals = async (ids: readonly string[]): Promise<(number | undefined)[]> => Promise.all(ids.map(async (id) => (await store.schedules.get(id))?.arrival))
      expect(await arrivals(['a-1', 'a-2', 'a-3', 'a-4', 'b-1', 'b-2'])).toEqual([1, 2, 3, 4, 1, 2])
      await store.commit((u) => {
        insert(u, 'a-5', 'a')
        u.schedules.setGroups('a-5', [['g']])
        insert(u, 'a-6', 'a')
        u.schedules.markAborted('a', at(3))
        insert(u, 'a-7', 'a')
      })
      expect(await arrivals(['a-5', 'a-6', 'a-7'])).toEqual([5, 6, 7])
      expect((await store.schedules.get('a-5'))?.groups).toEqual([['g']])
      expect(await Promise.all(['a-5', 'a-6', 'a-7'].map((id) => store.schedules.aborted(id)))).toEqual([true, true, false])
    })
  })

  describe('calls', () => {
    it('a new call is pending with nothing resolved; it runs and completes, its result stored byte for byte; listings keep their order', async () => {
      await scheduleWith('s', 'sch', [])
      await store.commit((u) => {
        u.schedules.insertCall({ sessionId: 's', id: 'c1', scheduleId: 'sch', position: 0, name: 'Read', input: { file_path: '/a' }, scheduledBy: 'key_1' })
        u.schedules.insertCall({ sessionId: 's', id: 'c2', scheduleId: 'sch', position: 1, name: 'Edit', input: undefined, dependsOn: ['c1'] })
      })
      expect(await store.schedules.call('s', 'c1')).toEqual({
        sessionId: 's',
        id: 'c1',
        scheduleId: 'sch',
        position: 0,
        name: 'Read',
        input: { file_path: '/a' },
        dependsOn: undefined,
        resolvedInput: undefined,
        flags: undefined,
        status: 'pending',
        startedAt: null,
        completedAt: null,
        result: undefined,
      })
      expect(await store.schedules.call('s', 'c2')).toMatchObject({ input: null, dependsOn: ['c1'] })
      expect([await store.schedules.scheduledBy('s', 'c1'), await store.schedules.scheduledBy('s', 'c2')]).toEqual(['key_1', undefined])
      expect(await store.schedules.call('s', 'missing')).toBeUndefined()
      expect(await store.schedules.call('other', 'c1')).toBeUndefined()

      // NewCall -> running -> completeCall: resolved input, flags, times and the result round trip, the result byte for byte.
      await scheduleWith('r', 'sch-r', ['same', 'changed'])
      await store.commit((u) => {
        u.schedules.markCallRunning('r', 'same', { file_path: 'same.txt' }, FLAGS, at(1))
        u.schedules.markCallRunning('r', 'changed', { file_path: '/abs/changed.txt' }, FLAGS, at(2))
      })
      expect(await store.schedules.call('r', 'same')).toMatchObject({ status: 'running', resolvedInput: { file_path: 'same.txt' }, flags: FLAGS, startedAt: at(1) })
      expect((await store.schedules.call('r', 'changed'))?.resolvedInput).toEqual({ file_path: '/abs/changed.txt' })
      await store.commit((u) => u.schedules.setCallStatus('r', 'same', 'awaiting_permission'))
      expect((await store.schedules.call('r', 'same'))?.status).toBe('awaiting_permission')
      const done = result('changed', 'ok ✓ \u{1F600}', {
        status: 'failed',
        success: false,
        isError: true,
        error: { message: 'boom', stage: 'handler', errorClass: 'exception', context: { z: 1, a: [null, 2.5, -0.125, 1e21] } },
      })
      await store.commit((u) => u.schedules.completeCall('r', done, at(3)))
      const stored = await store.schedules.call('r', 'changed')
      expect(stored).toMatchObject({ status: 'failed', completedAt: at(3) })
      expect(JSON.stringify(stored?.result)).toBe(JSON.stringify(done))

      // calls is in position order; history holds terminal calls in arrival then position order.
      await store.commit((u) => {
        u.sessions.insert(session('h'))
        u.schedules.insert({ id: 'first', sessionId: 'h', turnId: 't1', status: 'queued', groups: [], createdAt: AT })
        u.schedules.insert({ id: 'second', sessionId: 'h', turnId: 't2', status: 'queued', groups: [], createdAt: AT })
        for (const [id, scheduleId, position] of [
          ['z', 'second', 0],
          ['y', 'first', 2],
          ['x', 'first', 0],
          ['w', 'first', 1],
        ] as const) {
          u.schedules.insertCall({ sessionId: 'h', id, scheduleId, position, name: 'Edit', input: {} })
        }
      })
      expect((await store.schedules.calls('first')).map((c) => c.id)).toEqual(['x', 'w', 'y'])
      expect(await store.schedules.calls('missing')).toEqual([])
      await store.commit((u) => {
        for (const id of ['z', 'y', 'x']) u.schedules.completeCall('h', result(id, id), AT)
      })
      const history = await store.schedules.history('h')
      expect(history.map((c) => [c.turnId, c.id])).toEqual([
        ['t1', 'x'],
        ['t1', 'y'],
        ['t2', 'z'],
      ])
      expect(history[0]?.result).toEqual(result('x', 'x'))
      expect(await store.schedules.history('other')).toEqual([])

      // Running calls are those started, with no result, of unfinished schedules.
      await scheduleWith('a', 'sch-a', ['c1', 'c2', 'c3'])
      await scheduleWith('b', 'sch-b', ['c1'])
      await scheduleWith('b', 'sch-ended', ['c9'])
      expect(await store.schedules.runningCalls()).toEqual([])
      await store.commit((u) => {
        for (const [s, id] of [
          ['a', 'c1'],
          ['a', 'c2'],
          ['b', 'c1'],
          ['b', 'c9'],
        ] as const)
          u.schedules.markCallRunning(s, id, {}, FLAGS, AT)
        u.schedules.completeCall('a', result('c2', 'done'), AT)
        u.schedules.setStatus('sch-ended', 'stopped', AT)
      })
      const running = (await store.schedules.runningCalls()).sort((x, y) => byteOrder(x.sessionId, y.sessionId))
      expect(running).toEqual([
        { sessionId: 'a', id: 'c1' },
        { sessionId: 'b', id: 'c1' },
      ])
    })
  })

  describe('events', () => {
    it('each session keeps its own gapless increasing sequence; after pages by seq, limit and maxChars', async () => {
      expect(await store.events.lastSeq('a')).toBe(0)
      for (let seq = 1; seq <= 20; seq++) {
        // Interleaved across sessions, as concurrent sessions write.
        const nextOfA = (await store.events.lastSeq('a')) + 1
        await store.commit((u) => u.events.insert(eventOf('a', nextOfA, `{"a":${seq}}`), AT))
        const nextOfB = (await store.events.lastSeq('b')) + 1
        if (seq % 2 === 0) await store.commit((u) => u.events.insert(eventOf('b', nextOfB, `{"b":${seq}}`), AT))
      }
      expect(await store.events.lastSeq('a')).toBe(20)
      expect(await store.events.lastSeq('b')).toBe(10)
      const events = await store.events.after('a', 0, 1000)
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
      expect(events[4]).toEqual({ sessionId: 'a', seq: 5, type: 'ToolCallResult', data: '{"a":5}' })
      expect((await store.events.after('b', 0, 1000)).map((e) => e.data)).toEqual(Array.from({ length: 10 }, (_, i) => `{"b":${2 * (i + 1)}}`))

      // after pages by afterSeq and limit, in order, and ends where the events end.
      await store.commit((u) => {
        for (let seq = 1; seq <= 7; seq++) u.events.insert(eventOf('s', seq, `e${seq}`), AT)
      })
      const seqsOfS = async (after: number, limit: number): Promise<number[]> => (await store.events.after('s', after, limit)).map((e) => e.seq)
      expect(await seqsOfS(0, 3)).toEqual([1, 2, 3])
      expect(await seqsOfS(3, 3)).toEqual([4, 5, 6])
      expect(await seqsOfS(6, 3)).toEqual([7])
      expect(await seqsOfS(7, 3)).toEqual([])
      expect(await store.events.after('none', 0, 3)).toEqual([])

      // With maxChars a page ends after the event that reaches it, one event at least, counting as JavaScript does.
      // 4, 4, 4 characters; the emoji is two UTF-16 units and one code point.
      const data = ['aaaa', 'bbbb', '\u{1F600}\u{1F600}', 'cccc', 'dddd']
      await store.commit((u) => data.forEach((text, i) => u.events.insert(eventOf('m', i + 1, text), AT)))
      const seqs = async (after: number, limit: number, maxChars: number): Promise<number[]> => (await store.events.after('m', after, limit, maxChars)).map((e) => e.seq)
      expect(await seqs(0, 10, 0)).toEqual([1])
      expect(await seqs(0, 10, 1)).toEqual([1])
      expect(await seqs(0, 10, 4)).toEqual([1])
      expect(await seqs(0, 10, 5)).toEqual([1, 2])
      expect(await seqs(0, 10, 8)).toEqual([1, 2])
      expect(await seqs(0, 10, 9)).toEqual([1, 2, 3])
      expect(await seqs(1, 10, 8)).toEqual([2, 3])
      expect(await seqs(2, 10, 4)).toEqual([3])
      expect(await seqs(2, 10, 5)).toEqual([3, 4])
      expect(await seqs(0, 2, 1000)).toEqual([1, 2])
      expect(await seqs(0, 10, 1000)).toEqual([1, 2, 3, 4, 5])
      expect(await seqs(5, 10, 1)).toEqual([])
    })
  })

  describe('permissions and grants', () => {
    it('pending lists the pending ones oldest first (ties by id in byte order); requests, decisions and grants round trip', async () => {
      await store.commit((u) => {
        u.sessions.insert(session('a'))
        u.sessions.insert(session('b'))
        for (const id of TRICKY_IDS) u.approvals.insert(permission(`p${id}`, 'a', id, at(2)))
        u.approvals.insert(permission('late', 'b', 'c', at(3)))
        u.approvals.insert(permission('early', 'b', 'c', at(1)))
        u.approvals.insert(permission('decided', 'a', 'c', at(0)))
        u.approvals.decide('decided', DENIED)
      })
      const ofA = TRICKY_IDS.map((id) => `p${id}`).sort(byteOrder)
      expect((await store.approvals.pending()).map((p) => p.id)).toEqual(['early', ...ofA, 'late'])
      expect((await store.approvals.pending('a')).map((p) => p.id)).toEqual(ofA)
      expect((await store.approvals.pending('b')).map((p) => p.id)).toEqual(['early', 'late'])
      expect(await store.approvals.pending('none')).toEqual([])

      // A request comes back as stored, pending; a decision is kept once, the first one.
      const request = { ...permission('p1', 's', 'c1'), preview: { diff: '-a\n+b' }, suggestedRule: 'Bash(ls:*)' }
      await store.commit((u) => {
        u.sessions.insert(session('s'))
        u.approvals.insert(request)
        u.approvals.insert(permission('p2', 's', 'c2'))
      })
      expect(await store.approvals.get('p1')).toEqual({ ...request, status: 'pending', decidedBy: null, message: null, scope: null, decidedAt: null, deciderId: null, deciderName: null })
      expect((await store.approvals.get('p2'))?.preview).toBeUndefined()
      const decider = { deciderId: 'key_1', deciderName: 'reviewer' }
      await store.commit((u) => u.approvals.decide('p1', { status: 'allow', decidedBy: 'user', message: 'fine', scope: 'session', decidedAt: at(5), ...decider }))
      await store.commit((u) => u.approvals.decide('p1', { status: 'deny', decidedBy: 'timeout', message: null, scope: null, decidedAt: at(6) }))
      expect(await store.approvals.get('p1')).toMatchObject({ status: 'allow', decidedBy: 'user', message: 'fine', scope: 'session', decidedAt: at(5), ...decider })
      expect(await store.approvals.closedSession('p1')).toBeUndefined()
      expect(await store.approvals.get('missing')).toBeUndefined()

      // lastForCall is the call's latest request, decided or not.
      await store.commit((u) => u.sessions.insert(session('l')))
      expect(await store.approvals.lastForCall('l', 'c1')).toBeUndefined()
      await store.commit((u) => {
        u.approvals.insert(permission('first', 'l', 'c1', at(1)))
        u.approvals.decide('first', { ...DENIED, decidedAt: at(2) })
        u.approvals.insert(permission('second', 'l', 'c1', at(3)))
        u.approvals.insert(permission('other', 'l', 'c2', at(4)))
      })
      expect((await store.approvals.lastForCall('l', 'c1'))?.id).toBe('second')
      await store.commit((u) => u.approvals.decide('second', { status: 'allow', decidedBy: 'user', message: null, scope: 'once', decidedAt: at(5) }))
      expect(await store.approvals.lastForCall('l', 'c1')).toMatchObject({ id: 'second', status: 'allow' })
      expect(await store.approvals.lastForCall('other', 'c1')).toBeUndefined()

      // A grant is kept once and matches its exact session, tool and rule key.
      await store.commit((u) => {
        u.sessions.insert(session('g'))
        u.approvals.insertGrant('g', 'Bash', 'git status', AT)
      })
      await store.commit((u) => u.approvals.insertGrant('g', 'Bash', 'git status', at(1)))
      expect((await counts()).session_grants).toBe(1)
      expect(await store.approvals.hasGrant('g', 'Bash', 'git status')).toBe(true)
      expect(await store.approvals.hasGrant('g', 'Bash', 'Git status')).toBe(false)
      expect(await store.approvals.hasGrant('g', 'Edit', 'git status')).toBe(false)
      expect(await store.approvals.hasGrant('t', 'Bash', 'git status')).toBe(false)
    })

    it('insert keeps a request of that id already recorded as it is, decided or pending, and the rest of its unit commits', async () => {
      await store.commit((u) => {
        u.sessions.insert(session('s'))
        u.approvals.insert(permission('pending', 's', 'c1', at(1)))
        u.approvals.insert(permission('decided', 's', 'c2', at(1)))
        u.approvals.decide('decided', DENIED)
      })
      const before = [await store.approvals.get('pending'), await store.approvals.get('decided')]
      await store.commit((u) => {
        // A request re-opened after a restart: recorded again, in another unit, with what it says now.
        u.approvals.insert({ ...permission('pending', 's', 'c9', at(7)), reason: 'again', suggestedRule: 'Bash(ls)' })
        u.approvals.insert({ ...permission('decided', 's', 'c9', at(7)), reason: 'again' })
        u.events.insert(eventOf('s', 1, 'after'), AT)
      })
      expect([await store.approvals.get('pending'), await store.approvals.get('decided')]).toEqual(before)
      expect((await store.approvals.pending('s')).map((p) => p.id)).toEqual(['pending'])
      expect(await store.events.lastSeq('s')).toBe(1)
      expect((await counts()).permission_requests).toBe(2)
    })

    it('grantFor grants the request its tool and its suggested rule (else its tool) in its session, once', async () => {
      await store.commit((u) => {
        u.sessions.insert(session('s'))
        u.sessions.insert(session('t'))
        u.approvals.insert({ ...permission('ruled', 's', 'c1'), toolName: 'Bash', suggestedRule: 'Bash(npm test:*)' })
        u.approvals.insert({ ...permission('bare', 's', 'c2'), toolName: 'Edit', suggestedRule: null })
        u.approvals.insert({ ...permission('elsewhere', 't', 'c1'), toolName: 'Write', suggestedRule: 'Write(**)' })
      })
      await store.commit((u) => {
        u.approvals.decide('ruled', { status: 'allow', decidedBy: 'user', message: null, scope: 'session', decidedAt: at(1) })
        u.approvals.grantFor('ruled', at(1))
        u.approvals.grantFor('bare', at(1))
        u.approvals.grantFor('missing', at(1))
      })
      await store.commit((u) => u.approvals.grantFor('ruled', at(2)))
      expect(await store.approvals.hasGrant('s', 'Bash', 'Bash(npm test:*)')).toBe(true)
      expect(await store.approvals.hasGrant('s', 'Bash', 'Bash')).toBe(false)
      expect(await store.approvals.hasGrant('s', 'Edit', 'Edit')).toBe(true)
      expect(await store.approvals.hasGrant('t', 'Write', 'Write(**)')).toBe(false)
      expect((await counts()).session_grants).toBe(2)
      // A grant written by hand before is the same grant.
      await store.commit((u) => {
        u.approvals.insertGrant('t', 'Write', 'Write(**)', AT)
        u.approvals.grantFor('elsewhere', at(3))
      })
      expect((await counts()).session_grants).toBe(3)
    })

    it("projectRuleFor keeps the request's suggested rule (else its tool) for its session's workspace, once, and projectRulesOf reads it at once", async () => {
      await store.commit((u) => {
        u.sessions.insert(session('s', { workspace: '/w' }))
        u.sessions.insert(session('t', { workspace: '/w' }))
        u.sessions.insert(session('other', { workspace: '/other' }))
        u.approvals.insert({ ...permission('ruled', 's', 'c1'), toolName: 'Bash', suggestedRule: 'Bash(npm test:*)' })
        u.approvals.insert({ ...permission('same', 't', 'c1'), toolName: 'Bash', suggestedRule: 'Bash(npm test:*)' })
        u.approvals.insert({ ...permission('bare', 'other', 'c1'), toolName: 'Edit', suggestedRule: null })
      })
      // Read first, so that a store that remembers what it read must forget it.
      expect(await store.rules.projectRulesOf('/w')).toEqual([])
      expect(await store.rules.projectRulesOf('/other')).toEqual([])
      await store.commit((u) => {
        u.rules.projectRuleFor('ruled', at(1))
        u.rules.projectRuleFor('bare', at(2))
        u.rules.projectRuleFor('missing', at(3))
      })
      expect(await store.rules.projectRulesOf('/w')).toEqual(['Bash(npm test:*)'])
      expect(await store.rules.projectRulesOf('/other')).toEqual(['Edit'])
      // The same rule again, from another request of the workspace or from one twice, is not a second rule.
      await store.commit((u) => {
        u.rules.projectRuleFor('same', at(4))
        u.rules.projectRuleFor('ruled', at(5))
        u.rules.insertProjectRule('/other', 'Edit', at(6))
      })
      const rules = await store.rules.projectRules()
      expect(rules.map(({ workspace, rule, createdAt }) => ({ workspace, rule, createdAt }))).toEqual([
        { workspace: '/w', rule: 'Bash(npm test:*)', createdAt: at(1) },
        { workspace: '/other', rule: 'Edit', createdAt: at(2) },
      ])
      expect(rules.every((rule) => rule.id.length > 0)).toBe(true)
    })

    it("projectRuleFor with a rule stores that rule (the choice a person took) for the request's workspace instead of its suggested rule", async () => {
      await store.commit((u) => {
        u.sessions.insert(session('s', { workspace: '/w' }))
        u.approvals.insert({ ...permission('ruled', 's', 'c1'), toolName: 'Bash', suggestedRule: 'Bash(git status && rm -rf ./tmp)' })
      })
      await store.commit((u) => {
        u.rules.projectRuleFor('ruled', at(1), 'Bash(git status *)')
        u.rules.projectRuleFor('ruled', at(1), 'Bash(rm *)')
      })
      expect((await store.rules.projectRulesOf('/w')).sort()).toEqual(['Bash(git status *)', 'Bash(rm *)'])
    })
  })

  describe('row counts, project rules, artifacts, todos, client tools', () => {
    it('rowCounts counts every table; project rules, artifacts, todos and client tools round trip, in their documented order', async () => {
      expect(Object.keys(await counts()).sort()).toEqual(
        [
          'api_keys',
          'audit_log',
          'artifacts',
          'background_tasks',
          'call_schedulers',
          'client_http_tools',
          'closed_permissions',
          'permission_deciders',
          'session_four_eyes',
          'session_labels',
          'events',
          'permission_requests',
          'project_rules',
          'schedule_aborts',
          'schedules',
          'session_grants',
          'session_sandbox',
          'sessions',
          'todos',
          'tool_calls',
        ].sort(),
      )
      expect(Object.values(await counts()).every((count) => count === 0)).toBe(true)
      await scheduleWith('rc', 'sch-rc', ['c1', 'c2'])
      expect(await counts()).toMatchObject({ sessions: 1, schedules: 1, tool_calls: 2, events: 0 })

      await store.commit((u) => {
        u.rules.insertProjectRule('/w1', 'Bash(npm test)', at(1))
        u.rules.insertProjectRule('/w1', 'Bash(npm test)', at(2))
        u.rules.insertProjectRule('/w2', 'Edit(src/**)', at(3))
        u.rules.insertProjectRule('/w1', 'Read(**)', at(4))
      })
      const rules = await store.rules.projectRules()
      expect(rules.map(({ workspace, rule, createdAt }) => ({ workspace, rule, createdAt }))).toEqual([
        { workspace: '/w1', rule: 'Bash(npm test)', createdAt: at(1) },
        { workspace: '/w2', rule: 'Edit(src/**)', createdAt: at(3) },
        { workspace: '/w1', rule: 'Read(**)', createdAt: at(4) },
      ])
      expect(new Set(rules.map((r) => r.id)).size).toBe(3)
      for (const record of rules) expect(Object.keys(record).sort()).toEqual(['createdAt', 'id', 'rule', 'workspace'])
      expect(await store.rules.projectRulesOf('/w1')).toEqual(['Bash(npm test)', 'Read(**)'])
      expect(await store.rules.projectRulesOf('/w3')).toEqual([])
      await store.commit((u) => u.rules.deleteProjectRule(rules[0]?.id ?? ''))
      await store.commit((u) => u.rules.deleteProjectRule(rules[0]?.id ?? ''))
      expect((await counts()).project_rules).toBe(2)
      expect(await store.rules.projectRulesOf('/w1')).toEqual(['Read(**)'])
      await store.commit((u) => u.rules.insertProjectRule('/w3', 'Write(**)', at(5)))
      expect(await store.rules.projectRulesOf('/w3')).toEqual(['Write(**)'])

      // Artifacts: a record comes back as stored; bytes are summed per call and per session.
      await store.commit((u) => {
        u.artifacts.insert(artifact('a1', 's', 'c1', 100), at(1))
        u.artifacts.insert(artifact('a2', 's', 'c1', 2 ** 40), at(2))
        u.artifacts.insert(artifact('a3', 's', 'c2', 7), at(3))
        u.artifacts.insert(artifact('a4', 'other', 'c1', 1000), at(4))
      })
      expect(await store.artifacts.get('s', 'a1')).toEqual({ ...artifact('a1', 's', 'c1', 100), createdAt: at(1) })
      expect(await store.artifacts.get('other', 'a1')).toBeUndefined()
      expect(await store.artifacts.bytesOfCall('s', 'c1')).toBe(100 + 2 ** 40)
      expect(await store.artifacts.bytesOfCall('s', 'c3')).toBe(0)
      expect(await store.artifacts.bytesOfSession('s')).toBe(107 + 2 ** 40)
      expect(await store.artifacts.bytesOfSession('none')).toBe(0)
      expect((await store.artifacts.pathsOfSession('s')).sort()).toEqual(['/data/artifacts/a1', '/data/artifacts/a2', '/data/artifacts/a3'])
      expect(await store.artifacts.pathsOfSession('none')).toEqual([])

      // Todos: undefined until set, then the last list set.
      await store.commit((u) => u.sessions.insert(session('s')))
      expect(await store.sessions.todos('s')).toBeUndefined()
      await store.commit((u) => u.sessions.setTodos('s', [{ content: 'one', status: 'pending' }], at(1)))
      const twoAndThree = [
        { content: 'two', status: 'completed' },
        { content: 'three', status: 'in_progress' },
      ]
      await store.commit((u) => u.sessions.setTodos('s', twoAndThree, at(2)))
      expect(await store.sessions.todos('s')).toEqual(twoAndThree)
      await store.commit((u) => u.sessions.setTodos('s', [], at(3)))
      expect(await store.sessions.todos('s')).toEqual([])
      expect((await counts()).todos).toBe(1)

      // Client tools: a definition replaces the one of its name and moves last; oldest first, ties by name in byte order.
      await store.commit((u) => {
        for (const name of TRICKY_IDS) u.rules.putClientTool(name, { name, url: `http://127.0.0.1/${name}` }, at(1))
        u.rules.putClientTool('first', { name: 'first', v: 1 }, at(0))
        u.rules.putClientTool('last', { name: 'last' }, at(2))
      })
      const names = async (): Promise<unknown[]> => (await store.rules.clientTools()).map((d) => (d as { name: string }).name)
      expect(await names()).toEqual(['first', ...[...TRICKY_IDS].sort(byteOrder), 'last'])
      await store.commit((u) => u.rules.putClientTool('first', { name: 'first', v: 2 }, at(3)))
      expect(await names()).toEqual([...[...TRICKY_IDS].sort(byteOrder), 'last', 'first'])
      expect((await store.rules.clientTools()).at(-1)).toEqual({ name: 'first', v: 2 })
      await store.commit((u) => u.rules.deleteClientTool('first'))
      await store.commit((u) => u.rules.deleteClientTool('first'))
      expect(await names()).toEqual([...[...TRICKY_IDS].sort(byteOrder), 'last'])
      expect((await counts()).client_http_tools).toBe(TRICKY_IDS.length + 1)
    })
  })

  describe('background tasks', () => {
    it('a task is recorded running, every field as given; it ends once with its status, exit code and artifact; an unknown one is undefined', async () => {
      await store.commit((u) => {
        u.sessions.insert(session('t'))
        u.tasks.insert(backgroundTask('bash_1', 't', 'c1'))
      })
      const recorded = { sessionId: 't', id: 'bash_1', callId: 'c1', command: 'sleep 300', description: 'waits', nodeId: 'node-a', outputPath: '/data/artifacts/bash_1.tmp', startedAt: AT }
      expect(await store.tasks.get('t', 'bash_1')).toEqual({ ...recorded, status: 'running', exitCode: null, endedAt: null })
      expect(await store.tasks.get('t', 'bash_2')).toBeUndefined()
      expect(await store.tasks.get('other', 'bash_1')).toBeUndefined()
      await store.commit((u) => u.tasks.end('t', 'bash_1', { status: 'failed', exitCode: 3, outputPath: '/data/artifacts/c1-tool-result.txt', endedAt: at(9) }))
      expect(await store.tasks.get('t', 'bash_1')).toEqual({ ...recorded, status: 'failed', exitCode: 3, outputPath: '/data/artifacts/c1-tool-result.txt', endedAt: at(9) })
      // Small output is kept as no artifact: its path goes.
      await store.commit((u) => u.tasks.insert(backgroundTask('bash_2', 't', 'c2')))
      await store.commit((u) => u.tasks.end('t', 'bash_2', { status: 'completed', exitCode: 0, outputPath: null, endedAt: at(10) }))
      expect(await store.tasks.get('t', 'bash_2')).toMatchObject({ status: 'completed', exitCode: 0, outputPath: null })
      expect(await store.tasks.running()).toEqual([])
      await expect(store.commit((u) => u.tasks.insert(backgroundTask('bash_1', 't', 'c9')))).rejects.toThrow(StoreConflictError)
    })

    it('running lists the tasks still running, of one session or of all, oldest first; markLost ends only a running one; outputPathsOf names their files', async () => {
      await store.commit((u) => {
        u.tasks.insert(backgroundTask('bash_b', 'x', 'c1', at(2)))
        u.tasks.insert(backgroundTask('bash_a', 'x', 'c2', at(3)))
        u.tasks.insert(backgroundTask('bash_c', 'y', 'c1', at(1)))
        u.tasks.insert(backgroundTask('bash_done', 'x', 'c3', at(4)))
      })
      await store.commit((u) => u.tasks.end('x', 'bash_done', { status: 'killed', exitCode: null, outputPath: null, endedAt: at(5) }))
      expect((await store.tasks.running()).map((task) => task.id)).toEqual(['bash_c', 'bash_b', 'bash_a'])
      expect((await store.tasks.running('x')).map((task) => task.id)).toEqual(['bash_b', 'bash_a'])
      await store.commit((u) => {
        u.tasks.markLost('x', 'bash_b', at(6))
        u.tasks.markLost('x', 'bash_done', at(6))
        u.tasks.markLost('x', 'bash_missing', at(6))
      })
      expect(await store.tasks.get('x', 'bash_b')).toMatchObject({ status: 'lost', exitCode: null, outputPath: '/data/artifacts/bash_b.tmp', endedAt: at(6) })
      expect(await store.tasks.get('x', 'bash_done')).toMatchObject({ status: 'killed', endedAt: at(5) })
      expect((await store.tasks.running('x')).map((task) => task.id)).toEqual(['bash_a'])
      // A task found lost that ended after all (its server came back) records its end.
      await store.commit((u) => u.tasks.end('x', 'bash_b', { status: 'completed', exitCode: 0, outputPath: null, endedAt: at(7) }))
      expect(await store.tasks.get('x', 'bash_b')).toMatchObject({ status: 'completed', exitCode: 0, endedAt: at(7) })
      expect((await store.tasks.outputPathsOf('x')).sort()).toEqual(['/data/artifacts/bash_a.tmp'])
      expect(await store.tasks.outputPathsOf('none')).toEqual([])
    })
  })

  describe('keys', () => {
    const key = (id: string, secretHash: string, createdAt: string): Omit<KeyRecord, 'revokedAt'> => ({
      id,
      name: `key ${id}`,
      secretHash,
      role: id === 'k1' ? 'agent' : null,
      scopes: ['sessions:read', 'events:read'],
      sessions: id === 'k1' ? ['s1', '\u{1D7D8}'] : null,
      workspaces: id === 'k2' ? ['/srv/a', '/srv/é'] : null,
      expiresAt: id === 'k2' ? '2027-01-01T00:00:00.000Z' : null,
      createdAt,
      createdBy: 'admin',
    })

    it('come back as stored, by id and by secret hash; the list goes oldest first; a revoked key keeps its row and its first revocation time', async () => {
      expect(await store.keys.list()).toEqual([])
      await store.commit((u) => {
        u.keys.insert(key('k2', 'ab'.repeat(32), at(2)))
        u.keys.insert(key('k1', 'cd'.repeat(32), at(1)))
      })
      const k1 = { ...key('k1', 'cd'.repeat(32), at(1)), revokedAt: null }
      expect(await store.keys.get('k1')).toEqual(k1)
      expect(await store.keys.bySecretHash('ab'.repeat(32))).toEqual({ ...key('k2', 'ab'.repeat(32), at(2)), revokedAt: null })
      expect(await store.keys.bySecretHash('ef'.repeat(32))).toBeUndefined()
      expect(await store.keys.get('nope')).toBeUndefined()
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['k1', 'k2'])
      await store.commit((u) => u.keys.revoke('k1', at(5)))
      await store.commit((u) => u.keys.revoke('k1', at(9)))
      expect(await store.keys.bySecretHash('cd'.repeat(32))).toEqual({ ...k1, revokedAt: at(5) })
      expect((await counts()).api_keys).toBe(2)
    })

    it('a taken id or secret hash rejects the unit with StoreConflictError and writes nothing', async () => {
      await store.commit((u) => u.keys.insert(key('k1', 'cd'.repeat(32), at(1))))
      await expect(store.commit((u) => u.keys.insert(key('k1', 'ee'.repeat(32), at(2))))).rejects.toThrow(StoreConflictError)
      await expect(store.commit((u) => u.keys.insert(key('k3', 'cd'.repeat(32), at(2))))).rejects.toThrow(StoreConflictError)
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['k1'])
    })

    it("revokeLinksOf revokes the links to that session only, never a key limited to it, and keeps an earlier revocation's time", async () => {
      const link = (id: string, sessionId: string, hash: string): Omit<KeyRecord, 'revokedAt'> => ({ ...key(id, hash, at(1)), sessions: [sessionId] })
      await store.commit((u) => {
        u.keys.insert(link('link_a', '\u{1D7D8}', 'a1'.repeat(32)))
        u.keys.insert(link('link_b', '\u{1D7D8}', 'b1'.repeat(32)))
        u.keys.insert(link('link_c', 's2', 'c1'.repeat(32)))
        u.keys.insert(link('key_d', '\u{1D7D8}', 'd1'.repeat(32)))
        u.keys.revoke('link_b', at(3))
      })
      await store.commit((u) => u.keys.revokeLinksOf('\u{1D7D8}', at(7)))
      const revokedAt = async (id: string): Promise<string | null | undefined> => (await store.keys.get(id))?.revokedAt
      expect(await Promise.all(['link_a', 'link_b', 'link_c', 'key_d'].map(revokedAt))).toEqual([at(7), at(3), null, null])
    })
  })

  describe('units of work', () => {
    it("commit together, with the build's value; a build that throws writes nothing and rejects with its error", async () => {
      const value = await store.commit((u) => {
        u.sessions.insert(session('s'))
        u.schedules.insert({ id: 'sch', sessionId: 's', turnId: 't', status: 'queued', groups: [['c1']], createdAt: AT })
        u.schedules.insertCall({ sessionId: 's', id: 'c1', scheduleId: 'sch', position: 0, name: 'Edit', input: {} })
        u.events.insert(eventOf('s', 1, 'x'), AT)
        return 42
      })
      expect(value).toBe(42)
      expect(await counts()).toMatchObject({ sessions: 1, schedules: 1, tool_calls: 1, events: 1 })

      // A throw rolls back everything the unit wrote, and what was read before it is read the same after.
      await store.commit((u) => {
        u.sessions.insert(session('kept'))
        u.rules.insertProjectRule('/w', 'Read(**)', at(1))
      })
      expect((await store.sessions.get('kept'))?.permissionMode).toBe('default')
      expect(await store.rules.projectRulesOf('/w')).toEqual(['Read(**)'])
      const before = await counts()
      await expect(
        store.commit((u) => {
          u.sessions.insert(session('gone'))
          u.sessions.setPermissionMode('kept', 'plan')
          u.rules.insertProjectRule('/w', 'Edit(**)', at(2))
          u.events.insert(eventOf('kept', 1, 'x'), AT)
          u.sessions.setTodos('kept', ['t'], AT)
          u.rules.putClientTool('tool', { name: 'tool' }, AT)
          u.approvals.insertGrant('kept', 'Bash', 'ls', AT)
          throw new Error('changed my mind')
        }),
      ).rejects.toThrow('changed my mind')
      expect(await counts()).toEqual(before)
      expect(await store.sessions.get('gone')).toBeUndefined()
      expect((await store.sessions.get('kept'))?.permissionMode).toBe('default')
      expect(await store.rules.projectRulesOf('/w')).toEqual(['Read(**)'])
      expect(await store.approvals.hasGrant('kept', 'Bash', 'ls')).toBe(false)

      // A session's delete in a unit that throws deletes nothing.
      await store.commit((u) => u.events.insert(eventOf('s', 2, 'x'), AT))
      const beforeDelete = await counts()
      await expect(
        store.commit((u) => {
          u.sessions.delete('s')
          throw new Error('no')
        }),
      ).rejects.toThrow('no')
      expect(await counts()).toEqual(beforeDelete)
      expect((await store.sessions.get('s'))?.id).toBe('s')
    })

    it('commit in the order they were awaited, a failed one between them included', async () => {
      // Each unit needs the one before it: a call needs its schedule, a schedule its session.
      await store.commit((u) => u.sessions.insert(session('s')))
      await store.commit((u) => u.schedules.insert({ id: 'sch', sessionId: 's', turnId: 't', status: 'queued', groups: [], createdAt: AT }))
      await expect(store.commit((u) => u.sessions.insert(session('s')))).rejects.toThrow(StoreConflictError)
      await store.commit((u) => u.schedules.insertCall({ sessionId: 's', id: 'c1', scheduleId: 'sch', position: 0, name: 'Edit', input: {} }))
      await store.commit((u) => u.rules.putClientTool('tool', { name: 'tool', v: 1 }, at(1)))
      await store.commit((u) => u.rules.putClientTool('tool', { name: 'tool', v: 2 }, at(2)))
      expect((await store.schedules.call('s', 'c1'))?.scheduleId).toBe('sch')
      expect(await store.rules.clientTools()).toEqual([{ name: 'tool', v: 2 }])
    })

    it('units of unrelated rows committed at once all land, each whole', async () => {
      const ids = Array.from({ length: 12 }, (_, index) => `s${index}`)
      await Promise.all(
        ids.map((id) =>
          store.commit((u) => {
            u.sessions.insert(session(id))
            u.events.insert(eventOf(id, 1, `first of ${id}`), AT)
          }),
        ),
      )
      for (const id of ids) {
        expect((await store.sessions.get(id))?.id).toBe(id)
        expect((await store.events.after(id, 0, 10)).map((event) => event.data)).toEqual([`first of ${id}`])
      }
    })
  })

  describe('conflicts', () => {
    it('a taken key of any record rejects the unit with StoreConflictError and writes nothing', async () => {
      await scheduleWith('s', 'sch', ['c1'])
      await store.commit((u) => u.events.insert(eventOf('s', 1, 'original'), AT))
      const before = await counts()
      const call = await store.schedules.call('s', 'c1')
      await expect(store.commit((u) => u.schedules.insert({ id: 'sch', sessionId: 's', turnId: 'other', status: 'open', groups: [], createdAt: at(9) }))).rejects.toThrow(StoreConflictError)
      await expect(store.commit((u) => u.schedules.insertCall({ sessionId: 's', id: 'c1', scheduleId: 'sch', position: 5, name: 'Bash', input: { command: 'rm' } }))).rejects.toThrow(
        StoreConflictError,
      )
      await expect(store.commit((u) => u.events.insert(eventOf('s', 1, 'replacement'), AT))).rejects.toThrow(StoreConflictError)
      expect(await counts()).toEqual(before)
      expect(await store.schedules.get('sch')).toMatchObject({ turnId: 'turn-sch', status: 'queued' })
      expect(await store.schedules.call('s', 'c1')).toEqual(call)
      expect((await store.events.after('s', 0, 10)).map((e) => e.data)).toEqual(['original'])
      // The same call id in another session is another call.
      await scheduleWith('t', 'sch-t', ['c1'])
      expect((await store.schedules.call('t', 'c1'))?.scheduleId).toBe('sch-t')

      // A taken session or artifact id rejects with StoreConflictError and writes nothing.
      await store.commit((u) => {
        u.sessions.insert(session('u', { sandbox: { network: true } }))
        u.artifacts.insert(artifact('a', 'u', 'c1', 1), AT)
      })
      const beforeRefusals = await counts()
      await expect(store.commit((u) => u.sessions.insert(session('u', { workspace: '/elsewhere', sandbox: { network: false } })))).rejects.toThrow(StoreConflictError)
      await expect(store.commit((u) => u.artifacts.insert(artifact('a', 'u', 'c2', 5), AT))).rejects.toThrow(StoreConflictError)
      expect(await counts()).toEqual(beforeRefusals)
      expect(await store.sessions.get('u')).toEqual(session('u', { sandbox: { network: true } }))
      expect(await store.artifacts.bytesOfSession('u')).toBe(1)
    })

    it('a conflict anywhere in a unit rolls back the whole unit, first write, last write, or one the build caught; the store goes on', async () => {
      await scheduleWith('v', 'sch-v', ['c1'])
      await store.commit((u) => u.events.insert(eventOf('v', 1, 'original'), AT))
      const before = await counts()
      const taken = eventOf('v', 1, 'replacement')
      const otherWrites = (u: UnitOfWork): void => {
        u.sessions.insert(session('new'))
        u.sessions.setTodos('v', ['x'], AT)
        u.sessions.setPermissionMode('v', 'plan')
        u.approvals.insert(permission('p', 'v', 'c1'))
        u.rules.insertProjectRule('/w', 'Read(**)', AT)
        u.events.insert(eventOf('v', 2, 'next'), AT)
      }
      const outcomes = await Promise.allSettled([
        store.commit((u) => {
          u.events.insert(taken, AT)
          otherWrites(u)
        }),
        store.commit((u) => {
          otherWrites(u)
          u.events.insert(taken, AT)
        }),
        store.commit((u) => {
          try {
            u.events.insert(taken, AT)
          } catch {
            // A build that goes on after a write it was told failed: the unit still fails whole.
          }
          otherWrites(u)
        }),
      ])
      expect(outcomes.map((outcome) => (outcome.status === 'rejected' && outcome.reason instanceof StoreConflictError ? 'conflict' : outcome))).toEqual(['conflict', 'conflict', 'conflict'])
      expect(await counts()).toEqual(before)
      expect((await store.sessions.get('v'))?.permissionMode).toBe('default')
      expect(await store.rules.projectRulesOf('/w')).toEqual([])

      // The store goes on working after the failed units.
      await store.commit((u) => u.events.insert(eventOf('v', 2, 'next'), AT))
      expect(await store.events.lastSeq('v')).toBe(2)
    })
  })

  describe('text and JSON', () => {
    const TEXT = 'naïve 日本語 עברית \u{1F469}\u200D\u{1F4BB} e\u0301 \u0001\u0007\b\t\n\v\f\r\u001b\u001f\u007f\u0085\u2028\u2029\uFEFF"\\\'`${}'

    it('unicode, control characters (NUL aside) and 1 MB of JSON round trip exactly; session ids sort in byte order', async () => {
      const s = session(`id ${TEXT}`, { workspace: `/w/${TEXT}` })
      const done = result(TEXT, TEXT)
      await store.commit((u) => {
        u.sessions.insert(s)
        u.schedules.insert({ id: `sch ${TEXT}`, sessionId: s.id, turnId: TEXT, status: 'queued', groups: [[TEXT]], createdAt: AT })
        u.schedules.insertCall({ sessionId: s.id, id: TEXT, scheduleId: `sch ${TEXT}`, position: 0, name: 'Write', input: { [TEXT]: TEXT } })
        u.schedules.completeCall(s.id, done, AT)
        u.events.insert(eventOf(s.id, 1, JSON.stringify({ text: TEXT })), AT)
        u.events.insert(eventOf(s.id, 2, TEXT), AT)
        u.rules.insertProjectRule(TEXT, TEXT, AT)
        u.approvals.insertGrant(s.id, TEXT, TEXT, AT)
        u.sessions.setTodos(s.id, { [TEXT]: [TEXT] }, AT)
      })
      expect(await store.sessions.get(s.id)).toEqual(s)
      expect(await store.sessions.ids()).toEqual([s.id])
      const call = await store.schedules.call(s.id, TEXT)
      expect(call?.input).toEqual({ [TEXT]: TEXT })
      expect(JSON.stringify(call?.result)).toBe(JSON.stringify(done))
      expect((await store.schedules.history(s.id))[0]?.turnId).toBe(TEXT)
      expect((await store.events.after(s.id, 0, 10)).map((e) => e.data)).toEqual([JSON.stringify({ text: TEXT }), TEXT])
      expect(await store.rules.projectRulesOf(TEXT)).toEqual([TEXT])
      expect(await store.approvals.hasGrant(s.id, TEXT, TEXT)).toBe(true)
      expect(await store.sessions.todos(s.id)).toEqual({ [TEXT]: [TEXT] })

      // Large JSON (1 MB) round trips exactly.
      const big = 'x\u00e9\u{1F600}'.repeat(150_000) // over 1 MB of UTF-8
      expect(Buffer.byteLength(big)).toBeGreaterThan(1_000_000)
      await scheduleWith('s', 'sch', ['c1'])
      const bigResult = result('c1', big)
      const data = JSON.stringify({ type: 'ToolCallResult', result: bigResult })
      await store.commit((u) => {
        u.schedules.completeCall('s', bigResult, AT)
        u.events.insert(eventOf('s', 1, data), AT)
        u.sessions.setTodos('s', [{ content: big }], AT)
        u.rules.putClientTool('big', { name: 'big', description: big }, AT)
      })
      expect(JSON.stringify((await store.schedules.call('s', 'c1'))?.result)).toBe(JSON.stringify(bigResult))
      expect((await store.events.after('s', 0, 1))[0]?.data).toBe(data)
      expect(await store.events.after('s', 0, 10, 10)).toHaveLength(1)
      expect(await store.sessions.todos('s')).toEqual([{ content: big }])
      expect(await store.rules.clientTools()).toEqual([{ name: 'big', description: big }])

      // Unfinished schedules are ordered by session id in byte order.
      for (const id of TRICKY_IDS) await scheduleWith(id, `sch-${id}`, [])
      const unfinished = await store.schedules.unfinished()
      expect(unfinished.map((schedule) => schedule.sessionId).filter((id) => TRICKY_IDS.includes(id))).toEqual([...TRICKY_IDS].sort(byteOrder))
    })
  })

  describe('reopening', () => {
    it('keeps everything written, and opening again migrates nothing twice', async () => {
      await store.commit((u) => u.sessions.insert(session('s', { sandbox: { writablePaths: ['/tmp/x'] }, permissionTimeoutMs: 1000 })))
      await scheduleWith('s', 'sch', ['c1', 'c2'])
      await store.commit((u) => {
        u.schedules.markCallRunning('s', 'c1', { file_path: 'c1.txt' }, FLAGS, at(1))
        u.schedules.completeCall('s', result('c1', 'done'), at(2))
        u.schedules.markAborted('s', at(3))
        u.approvals.insert(permission('p', 's', 'c2'))
        u.approvals.insertGrant('s', 'Bash', 'ls', AT)
        u.rules.insertProjectRule('/w', 'Read(**)', AT)
        u.artifacts.insert(artifact('a', 's', 'c1', 12), AT)
        u.sessions.setTodos('s', [{ content: 'todo' }], AT)
        u.rules.putClientTool('tool', { name: 'tool' }, AT)
        u.tasks.insert(backgroundTask('bash_s', 's', 'c2'))
        for (let seq = 1; seq <= 3; seq++) u.events.insert(eventOf('s', seq, `e${seq}`), AT)
      })
      const before = await counts()
      const calls = await store.schedules.calls('sch')
      await reopen()
      await reopen()
      expect(await counts()).toEqual(before)
      expect(await store.sessions.get('s')).toEqual(session('s', { sandbox: { writablePaths: ['/tmp/x'] }, permissionTimeoutMs: 1000 }))
      expect(await store.schedules.calls('sch')).toEqual(calls)
      expect(await store.schedules.aborted('sch')).toBe(true)
      expect((await store.approvals.pending()).map((p) => p.id)).toEqual(['p'])
      expect(await store.approvals.hasGrant('s', 'Bash', 'ls')).toBe(true)
      expect(await store.rules.projectRulesOf('/w')).toEqual(['Read(**)'])
      expect((await store.artifacts.get('s', 'a'))?.bytes).toBe(12)
      expect(await store.sessions.todos('s')).toEqual([{ content: 'todo' }])
      expect(await store.rules.clientTools()).toEqual([{ name: 'tool' }])
      expect(await store.events.lastSeq('s')).toBe(3)
      // A task recorded running before is still recorded running: the process that reopens decides it is lost.
      expect((await store.tasks.running()).map((task) => task.id)).toEqual(['bash_s'])
      // The next seq goes on from where it was.
      await store.commit((u) => u.events.insert(eventOf('s', 4, 'e4'), AT))
      await expect(store.commit((u) => u.events.insert(eventOf('s', 3, 'again'), AT))).rejects.toThrow(StoreConflictError)
      expect((await store.schedules.unfinished()).map((s) => s.id)).toEqual(['sch'])
    })
  })
})

describe('migrations', () => {
  it('SQLite and PostgreSQL are versioned together: both end at the same schema version', () => {
    const newest = (versions: number[]): number => Math.max(...versions)
    const sqlite = readMigrations().map((m) => m.version)
    const postgres = readPostgresMigrations().map((m) => m.version)
    expect(sqlite.length).toBeGreaterThan(0)
    expect(postgres.length).toBeGreaterThan(0)
    expect(newest(postgres)).toBe(newest(sqlite))
    // Every PostgreSQL version names a schema SQLite also has.
    for (const version of postgres) expect(sqlite).toContain(version)
  })
})
