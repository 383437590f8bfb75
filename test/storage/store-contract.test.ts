/**
 * The Store port's contract (src/contracts/store.ts), proved through the port alone. The file
 * runs in both vitest projects: on SQLite (the data directory's file) and on PostgreSQL (a
 * fresh database of the run's private server), so every promise here is kept by both.
 */
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreConflictError, type ArtifactRecord, type OpenedStore, type PermissionRow, type SessionRecord, type Store } from '../../src/contracts/store.js'
import { openStore } from '../../src/storage/open-store.js'
import { readPostgresMigrations } from '../../src/storage/postgres/migrations.js'
import { readMigrations } from '../../src/storage/sqlite/database.js'
import { tempDir } from '../support/temp-dirs.js'
import { dropDatabase, freshDatabaseUrl, testBackend } from '../support/test-database.js'
import { sessionRecord, STORE_TEST_AT, succeededResult, toolFlags } from '../support/store-records.js'

const logger = pino({ level: 'silent' })

let dataDir: string
let databaseUrl: string | undefined
let opened: OpenedStore
let store: Store

/** Closes the store and opens it again on the same data directory or database. */
function reopen(): Store {
  opened.close()
  opened = openStore({ dataDir, databaseUrl, logger })
  store = opened.store
  return store
}

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
function scheduleWith(sessionId: string, scheduleId: string, calls: string[], createdAt = AT): void {
  if (store.getSession(sessionId) === undefined) store.insertSession(session(sessionId))
  store.insertSchedule({ id: scheduleId, sessionId, turnId: `turn-${scheduleId}`, status: 'queued', groups: calls.map((id) => [id]), createdAt })
  calls.forEach((id, position) => store.insertCall({ sessionId, id, scheduleId, position, name: 'Edit', input: { file_path: `${id}.txt` } }))
}

function permission(id: string, sessionId: string, callId: string, createdAt = AT): Omit<PermissionRow, 'status' | 'decidedBy' | 'message' | 'scope' | 'decidedAt'> {
  return { id, sessionId, callId, toolName: 'Bash', input: { command: 'ls' }, preview: undefined, riskLevel: 'medium', reason: 'runs a command', suggestedRule: null, createdAt }
}

function artifact(id: string, sessionId: string, callId: string, bytes: number): ArtifactRecord {
  return { id, sessionId, callId, path: `/data/artifacts/${id}`, uri: `toolexec://artifacts/${id}`, bytes, mediaType: 'text/plain', retention: 'session', sha256: 'ab'.repeat(32) }
}

function eventOf(sessionId: string, seq: number, data: string): { sessionId: string; seq: number; type: string; data: string } {
  return { sessionId, seq, type: 'ToolCallResult', data }
}

function zeroCounts(): Record<string, number> {
  return Object.fromEntries(Object.keys(store.rowCounts()).map((table) => [table, 0]))
}

describe(`Store contract on ${testBackend()}`, () => {
  beforeEach(async () => {
    dataDir = await tempDir('store-contract')
    databaseUrl = await freshDatabaseUrl()
    opened = openStore({ dataDir, databaseUrl, logger })
    store = opened.store
  })

  afterEach(async () => {
    opened.close()
    if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
  })

  describe('sessions', () => {
    it('come back as stored, every field, the sandbox included; an unknown id is undefined; the mode changes at once', () => {
      const plain = session('plain')
      const full = session('full', {
        permissionMode: 'bypassPermissions',
        interactive: false,
        permissionTimeoutMs: 90_000,
        sandbox: { readOnlyPaths: ['/opt/ro'], writablePaths: ['/tmp/w'], network: true },
      })
      store.insertSession(plain)
      store.insertSession(full)
      expect(store.getSession('plain')).toEqual(plain)
      expect(store.getSession('full')).toEqual(full)
      expect(store.getSession('missing')).toBeUndefined()
      expect(store.permissionModeOf('full')).toBe('bypassPermissions')
      expect(store.permissionModeOf('missing')).toBeUndefined()
      expect(store.sessionIds().sort()).toEqual(['full', 'plain'])

      // setPermissionMode changes what getSession and permissionModeOf read at once.
      store.insertSession(session('s'))
      expect(store.permissionModeOf('s')).toBe('default')
      store.setPermissionMode('s', 'plan')
      expect(store.permissionModeOf('s')).toBe('plan')
      expect(store.getSession('s')?.permissionMode).toBe('plan')
    })

    it('sessionsBefore pages newest first, ties on creation broken by id in byte order; sessionCounts counts one session only', () => {
      for (const id of TRICKY_IDS) store.insertSession(session(id, { createdAt: at(1) }))
      store.insertSession(session('older', { createdAt: at(0) }))
      store.insertSession(session('newer', { createdAt: at(2) }))
      const expected = ['newer', ...[...TRICKY_IDS].sort(byteOrder).reverse(), 'older']
      expect(store.sessionsBefore(undefined, 100).map((s) => s.id)).toEqual(expected)
      const pages: string[] = []
      let before: SessionRecord | undefined
      for (;;) {
        const page = store.sessionsBefore(before, 3)
        if (page.length === 0) break
        expect(page.length).toBeLessThanOrEqual(3)
        pages.push(...page.map((s) => s.id))
        before = page[page.length - 1]
      }
      expect(pages).toEqual(expected)
      expect(store.sessionsBefore(undefined, 1)[0]).toEqual(session('newer', { createdAt: at(2) }))

      // sessionCounts counts the schedules, calls and pending permissions of one session only.
      expect(store.sessionCounts('none')).toEqual({ schedules: 0, calls: 0, pendingPermissions: 0 })
      scheduleWith('s', 'sch-1', ['c1', 'c2'])
      scheduleWith('s', 'sch-2', ['c3'])
      scheduleWith('other', 'sch-3', ['c1'])
      store.insertPermission(permission('p1', 's', 'c1'))
      store.insertPermission(permission('p2', 's', 'c2'))
      store.decidePermission('p2', { status: 'deny', decidedBy: 'user', message: null, scope: null, decidedAt: AT })
      store.insertPermission(permission('p3', 'other', 'c1'))
      expect(store.sessionCounts('s')).toEqual({ schedules: 2, calls: 3, pendingPermissions: 1 })
    })

    it('deleteSession removes every row of the session and no other, and returns its artifact paths', () => {
      for (const id of ['gone', 'kept']) {
        store.insertSession(session(id, { sandbox: { network: false } }))
        scheduleWith(id, `sch-${id}`, ['c1'])
        store.markCallRunning(id, 'c1', { file_path: 'other.txt' }, FLAGS, AT)
        store.completeCall(id, result('c1', 'done'), AT)
        store.insertPermission(permission(`p-${id}`, id, 'c1'))
        store.insertGrant(id, 'Bash', 'ls', AT)
        store.setTodos(id, [{ content: 'x' }], AT)
        store.insertArtifact(artifact(`a1-${id}`, id, 'c1', 10), AT)
        store.insertArtifact(artifact(`a2-${id}`, id, 'c1', 20), AT)
        store.insertEvent(eventOf(id, 1, '{}'), AT)
        store.insertSchedule({ id: `open-${id}`, sessionId: id, turnId: 't', status: 'open', groups: [], createdAt: AT })
        store.markSchedulesAborted(id, AT)
      }
      const before = store.rowCounts()
      expect(store.deleteSession('gone').sort()).toEqual(['/data/artifacts/a1-gone', '/data/artifacts/a2-gone'])
      expect(store.getSession('gone')).toBeUndefined()
      expect(store.sessionIds()).toEqual(['kept'])
      const after = store.rowCounts()
      for (const [table, count] of Object.entries(before)) expect([table, after[table]]).toEqual([table, count / 2])
      expect(store.lastSeq('gone')).toBe(0)
      expect(store.getTodos('gone')).toBeUndefined()
      expect(store.getSession('kept')?.sandbox).toEqual({ network: false })
      expect(store.deleteSession('gone')).toEqual([])
    })
  })

  describe('schedules', () => {
    it('count arrivals per session and come back as stored; aborts mark the unfinished ones of one session', () => {
      scheduleWith('a', 'sch-1', ['c1', 'c2'])
      scheduleWith('a', 'sch-2', [])
      scheduleWith('b', 'sch-3', [])
      expect(store.getSchedule('sch-1')).toEqual({
        id: 'sch-1',
        sessionId: 'a',
        turnId: 'turn-sch-1',
        arrival: 1,
        status: 'queued',
        groups: [['c1'], ['c2']],
        createdAt: AT,
        completedAt: null,
      })
      expect(store.getSchedule('sch-2')?.arrival).toBe(2)
      expect(store.getSchedule('sch-3')?.arrival).toBe(1)
      expect(store.getSchedule('missing')).toBeUndefined()

      // markSchedulesAborted marks the unfinished schedules of the session only, and may be repeated.
      scheduleWith('x', 'x-1', [])
      scheduleWith('x', 'x-2', [])
      scheduleWith('y', 'y-1', [])
      store.setScheduleStatus('x-2', 'completed', AT)
      store.markSchedulesAborted('x', AT)
      store.markSchedulesAborted('x', at(1))
      expect(store.scheduleAborted('x-1')).toBe(true)
      expect(store.scheduleAborted('x-2')).toBe(false)
      expect(store.scheduleAborted('y-1')).toBe(false)
      expect(store.scheduleAborted('missing')).toBe(false)
      expect(store.rowCounts().schedule_aborts).toBe(1)
    })

    it('status, end time and groups change; unfinished ones are listed by session, oldest arrival first', () => {
      scheduleWith('b', 'b-1', [])
      scheduleWith('a', 'a-1', [])
      scheduleWith('a', 'a-2', [])
      scheduleWith('a', 'a-3', [])
      store.setScheduleGroups('a-2', [['x', 'y'], ['z']])
      store.setScheduleStatus('a-1', 'running', null)
      store.setScheduleStatus('a-3', 'completed', at(9))
      expect(store.getSchedule('a-2')?.groups).toEqual([['x', 'y'], ['z']])
      expect(store.getSchedule('a-1')?.status).toBe('running')
      expect(store.getSchedule('a-3')).toMatchObject({ status: 'completed', completedAt: at(9) })
      expect(store.unfinishedSchedules().map((s) => s.id)).toEqual(['a-1', 'a-2', 'b-1'])
      expect(store.hasUnfinishedSchedule('a')).toBe(true)
      expect(store.unfinishedScheduleIds('a').sort()).toEqual(['a-1', 'a-2'])
      store.setScheduleStatus('b-1', 'cancelled', at(10))
      expect(store.hasUnfinishedSchedule('b')).toBe(false)
      expect(store.unfinishedScheduleIds('b')).toEqual([])
      expect(store.hasUnfinishedSchedule('nobody')).toBe(false)
    })
  })

  describe('calls', () => {
    it('a new call is pending with nothing resolved; it runs and completes, its result stored byte for byte; listings keep their order', () => {
      scheduleWith('s', 'sch', [])
      store.insertCall({ sessionId: 's', id: 'c1', scheduleId: 'sch', position: 0, name: 'Read', input: { file_path: '/a' } })
      store.insertCall({ sessionId: 's', id: 'c2', scheduleId: 'sch', position: 1, name: 'Edit', input: undefined, dependsOn: ['c1'] })
      expect(store.getCall('s', 'c1')).toEqual({
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
      expect(store.getCall('s', 'c2')).toMatchObject({ input: null, dependsOn: ['c1'] })
      expect(store.getCall('s', 'missing')).toBeUndefined()
      expect(store.getCall('other', 'c1')).toBeUndefined()

      // NewCall -> running -> completeCall: resolved input, flags, times and the result round trip, the result byte for byte.
      scheduleWith('r', 'sch-r', ['same', 'changed'])
      store.markCallRunning('r', 'same', { file_path: 'same.txt' }, FLAGS, at(1))
      store.markCallRunning('r', 'changed', { file_path: '/abs/changed.txt' }, FLAGS, at(2))
      expect(store.getCall('r', 'same')).toMatchObject({ status: 'running', resolvedInput: { file_path: 'same.txt' }, flags: FLAGS, startedAt: at(1) })
      expect(store.getCall('r', 'changed')?.resolvedInput).toEqual({ file_path: '/abs/changed.txt' })
      store.setCallStatus('r', 'same', 'awaiting_permission')
      expect(store.getCall('r', 'same')?.status).toBe('awaiting_permission')
      const done = result('changed', 'ok ✓ \u{1F600}', {
        status: 'failed',
        success: false,
        isError: true,
        error: { message: 'boom', stage: 'handler', errorClass: 'exception', context: { z: 1, a: [null, 2.5, -0.125, 1e21] } },
      })
      store.completeCall('r', done, at(3))
      const stored = store.getCall('r', 'changed')
      expect(stored).toMatchObject({ status: 'failed', completedAt: at(3) })
      expect(JSON.stringify(stored?.result)).toBe(JSON.stringify(done))

      // callsOfSchedule is in position order; history holds terminal calls in arrival then position order.
      store.insertSession(session('h'))
      store.insertSchedule({ id: 'first', sessionId: 'h', turnId: 't1', status: 'queued', groups: [], createdAt: AT })
      store.insertSchedule({ id: 'second', sessionId: 'h', turnId: 't2', status: 'queued', groups: [], createdAt: AT })
      for (const [id, scheduleId, position] of [
        ['z', 'second', 0],
        ['y', 'first', 2],
        ['x', 'first', 0],
        ['w', 'first', 1],
      ] as const) {
        store.insertCall({ sessionId: 'h', id, scheduleId, position, name: 'Edit', input: {} })
      }
      expect(store.callsOfSchedule('first').map((c) => c.id)).toEqual(['x', 'w', 'y'])
      expect(store.callsOfSchedule('missing')).toEqual([])
      for (const id of ['z', 'y', 'x']) store.completeCall('h', result(id, id), AT)
      expect(store.history('h').map((c) => [c.turnId, c.id])).toEqual([
        ['t1', 'x'],
        ['t1', 'y'],
        ['t2', 'z'],
      ])
      expect(store.history('h')[0]?.result).toEqual(result('x', 'x'))
      expect(store.history('other')).toEqual([])

      // Running calls are those started, with no result, of unfinished schedules.
      scheduleWith('a', 'sch-a', ['c1', 'c2', 'c3'])
      scheduleWith('b', 'sch-b', ['c1'])
      scheduleWith('b', 'sch-ended', ['c9'])
      expect(store.runningCallCount()).toBe(0)
      expect(store.runningCalls()).toEqual([])
      for (const [s, id] of [
        ['a', 'c1'],
        ['a', 'c2'],
        ['b', 'c1'],
        ['b', 'c9'],
      ] as const)
        store.markCallRunning(s, id, {}, FLAGS, AT)
      store.completeCall('a', result('c2', 'done'), AT)
      store.setScheduleStatus('sch-ended', 'stopped', AT)
      expect(store.runningCallCount()).toBe(2)
      const running = store.runningCalls().sort((x, y) => byteOrder(x.sessionId, y.sessionId))
      expect(running).toEqual([
        { sessionId: 'a', id: 'c1' },
        { sessionId: 'b', id: 'c1' },
      ])
    })
  })

  describe('events', () => {
    it('each session keeps its own gapless increasing sequence; eventsAfter pages by seq, limit and maxChars', () => {
      expect(store.lastSeq('a')).toBe(0)
      for (let seq = 1; seq <= 20; seq++) {
        // Interleaved across sessions, as concurrent sessions write.
        store.insertEvent(eventOf('a', store.lastSeq('a') + 1, `{"a":${seq}}`), AT)
        if (seq % 2 === 0) store.insertEvent(eventOf('b', store.lastSeq('b') + 1, `{"b":${seq}}`), AT)
      }
      expect(store.lastSeq('a')).toBe(20)
      expect(store.lastSeq('b')).toBe(10)
      const events = store.eventsAfter('a', 0, 1000)
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
      expect(events[4]).toEqual({ sessionId: 'a', seq: 5, type: 'ToolCallResult', data: '{"a":5}' })
      expect(store.eventsAfter('b', 0, 1000).map((e) => e.data)).toEqual(Array.from({ length: 10 }, (_, i) => `{"b":${2 * (i + 1)}}`))

      // eventsAfter pages by afterSeq and limit, in order, and ends where the events end.
      for (let seq = 1; seq <= 7; seq++) store.insertEvent(eventOf('s', seq, `e${seq}`), AT)
      expect(store.eventsAfter('s', 0, 3).map((e) => e.seq)).toEqual([1, 2, 3])
      expect(store.eventsAfter('s', 3, 3).map((e) => e.seq)).toEqual([4, 5, 6])
      expect(store.eventsAfter('s', 6, 3).map((e) => e.seq)).toEqual([7])
      expect(store.eventsAfter('s', 7, 3)).toEqual([])
      expect(store.eventsAfter('none', 0, 3)).toEqual([])

      // With maxChars a page ends after the event that reaches it, one event at least, counting as JavaScript does.
      // 4, 4, 4 characters; the emoji is two UTF-16 units and one code point.
      const data = ['aaaa', 'bbbb', '\u{1F600}\u{1F600}', 'cccc', 'dddd']
      data.forEach((text, i) => store.insertEvent(eventOf('m', i + 1, text), AT))
      const seqs = (after: number, limit: number, maxChars: number): number[] => store.eventsAfter('m', after, limit, maxChars).map((e) => e.seq)
      expect(seqs(0, 10, 0)).toEqual([1])
      expect(seqs(0, 10, 1)).toEqual([1])
      expect(seqs(0, 10, 4)).toEqual([1])
      expect(seqs(0, 10, 5)).toEqual([1, 2])
      expect(seqs(0, 10, 8)).toEqual([1, 2])
      expect(seqs(0, 10, 9)).toEqual([1, 2, 3])
      expect(seqs(1, 10, 8)).toEqual([2, 3])
      expect(seqs(2, 10, 4)).toEqual([3])
      expect(seqs(2, 10, 5)).toEqual([3, 4])
      expect(seqs(0, 2, 1000)).toEqual([1, 2])
      expect(seqs(0, 10, 1000)).toEqual([1, 2, 3, 4, 5])
      expect(seqs(5, 10, 1)).toEqual([])
    })
  })

  describe('permissions and grants', () => {
    it('pendingPermissions lists the pending ones oldest first (ties by id in byte order); requests, decisions and grants round trip', () => {
      store.insertSession(session('a'))
      store.insertSession(session('b'))
      for (const id of TRICKY_IDS) store.insertPermission(permission(`p${id}`, 'a', id, at(2)))
      store.insertPermission(permission('late', 'b', 'c', at(3)))
      store.insertPermission(permission('early', 'b', 'c', at(1)))
      store.insertPermission(permission('decided', 'a', 'c', at(0)))
      store.decidePermission('decided', { status: 'deny', decidedBy: 'user', message: null, scope: null, decidedAt: AT })
      const ofA = TRICKY_IDS.map((id) => `p${id}`).sort(byteOrder)
      expect(store.pendingPermissions().map((p) => p.id)).toEqual(['early', ...ofA, 'late'])
      expect(store.pendingPermissions('a').map((p) => p.id)).toEqual(ofA)
      expect(store.pendingPermissions('b').map((p) => p.id)).toEqual(['early', 'late'])
      expect(store.pendingPermissions('none')).toEqual([])

      // A request comes back as stored, pending; a decision is kept once, the first one.
      store.insertSession(session('s'))
      const request = { ...permission('p1', 's', 'c1'), preview: { diff: '-a\n+b' }, suggestedRule: 'Bash(ls:*)' }
      store.insertPermission(request)
      expect(store.getPermission('p1')).toEqual({ ...request, status: 'pending', decidedBy: null, message: null, scope: null, decidedAt: null })
      store.insertPermission(permission('p2', 's', 'c2'))
      expect(store.getPermission('p2')?.preview).toBeUndefined()
      store.decidePermission('p1', { status: 'allow', decidedBy: 'user', message: 'fine', scope: 'session', decidedAt: at(5) })
      store.decidePermission('p1', { status: 'deny', decidedBy: 'timeout', message: null, scope: null, decidedAt: at(6) })
      expect(store.getPermission('p1')).toMatchObject({ status: 'allow', decidedBy: 'user', message: 'fine', scope: 'session', decidedAt: at(5) })
      expect(store.getPermission('missing')).toBeUndefined()

      // lastPermissionForCall is the call's latest request, decided or not.
      store.insertSession(session('l'))
      expect(store.lastPermissionForCall('l', 'c1')).toBeUndefined()
      store.insertPermission(permission('first', 'l', 'c1', at(1)))
      store.decidePermission('first', { status: 'deny', decidedBy: 'user', message: null, scope: null, decidedAt: at(2) })
      store.insertPermission(permission('second', 'l', 'c1', at(3)))
      store.insertPermission(permission('other', 'l', 'c2', at(4)))
      expect(store.lastPermissionForCall('l', 'c1')?.id).toBe('second')
      store.decidePermission('second', { status: 'allow', decidedBy: 'user', message: null, scope: 'once', decidedAt: at(5) })
      expect(store.lastPermissionForCall('l', 'c1')).toMatchObject({ id: 'second', status: 'allow' })
      expect(store.lastPermissionForCall('other', 'c1')).toBeUndefined()

      // A grant is kept once and matches its exact session, tool and rule key.
      store.insertSession(session('g'))
      store.insertGrant('g', 'Bash', 'git status', AT)
      store.insertGrant('g', 'Bash', 'git status', at(1))
      expect(store.rowCounts().session_grants).toBe(1)
      expect(store.hasGrant('g', 'Bash', 'git status')).toBe(true)
      expect(store.hasGrant('g', 'Bash', 'Git status')).toBe(false)
      expect(store.hasGrant('g', 'Edit', 'git status')).toBe(false)
      expect(store.hasGrant('t', 'Bash', 'git status')).toBe(false)
    })
  })

  describe('row counts, project rules, artifacts, todos, client tools', () => {
    it('rowCounts counts every table; project rules, artifacts, todos and client tools round trip, in their documented order', () => {
      expect(Object.keys(store.rowCounts()).sort()).toEqual(
        [
          'artifacts',
          'client_http_tools',
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
      expect(store.rowCounts()).toEqual(zeroCounts())
      scheduleWith('rc', 'sch-rc', ['c1', 'c2'])
      expect(store.rowCounts()).toMatchObject({ sessions: 1, schedules: 1, tool_calls: 2, events: 0 })

      store.insertProjectRule('/w1', 'Bash(npm test)', at(1))
      store.insertProjectRule('/w1', 'Bash(npm test)', at(2))
      store.insertProjectRule('/w2', 'Edit(src/**)', at(3))
      store.insertProjectRule('/w1', 'Read(**)', at(4))
      const rules = store.projectRules()
      expect(rules.map(({ workspace, rule, createdAt }) => ({ workspace, rule, createdAt }))).toEqual([
        { workspace: '/w1', rule: 'Bash(npm test)', createdAt: at(1) },
        { workspace: '/w2', rule: 'Edit(src/**)', createdAt: at(3) },
        { workspace: '/w1', rule: 'Read(**)', createdAt: at(4) },
      ])
      expect(new Set(rules.map((r) => r.id)).size).toBe(3)
      for (const record of rules) expect(Object.keys(record).sort()).toEqual(['createdAt', 'id', 'rule', 'workspace'])
      expect(store.projectRulesOf('/w1')).toEqual(['Bash(npm test)', 'Read(**)'])
      expect(store.projectRulesOf('/w3')).toEqual([])
      expect(store.deleteProjectRule(rules[0]?.id ?? '')).toBe(true)
      expect(store.deleteProjectRule(rules[0]?.id ?? '')).toBe(false)
      expect(store.projectRulesOf('/w1')).toEqual(['Read(**)'])
      store.insertProjectRule('/w3', 'Write(**)', at(5))
      expect(store.projectRulesOf('/w3')).toEqual(['Write(**)'])

      // Artifacts: a record comes back as stored; bytes are summed per call and per session.
      store.insertArtifact(artifact('a1', 's', 'c1', 100), at(1))
      store.insertArtifact(artifact('a2', 's', 'c1', 2 ** 40), at(2))
      store.insertArtifact(artifact('a3', 's', 'c2', 7), at(3))
      store.insertArtifact(artifact('a4', 'other', 'c1', 1000), at(4))
      expect(store.getArtifact('s', 'a1')).toEqual({ ...artifact('a1', 's', 'c1', 100), createdAt: at(1) })
      expect(store.getArtifact('other', 'a1')).toBeUndefined()
      expect(store.artifactBytesOfCall('s', 'c1')).toBe(100 + 2 ** 40)
      expect(store.artifactBytesOfCall('s', 'c3')).toBe(0)
      expect(store.artifactBytesOfSession('s')).toBe(107 + 2 ** 40)
      expect(store.artifactBytesOfSession('none')).toBe(0)

      // Todos: undefined until set, then the last list set.
      store.insertSession(session('s'))
      expect(store.getTodos('s')).toBeUndefined()
      store.setTodos('s', [{ content: 'one', status: 'pending' }], at(1))
      store.setTodos(
        's',
        [
          { content: 'two', status: 'completed' },
          { content: 'three', status: 'in_progress' },
        ],
        at(2),
      )
      expect(store.getTodos('s')).toEqual([
        { content: 'two', status: 'completed' },
        { content: 'three', status: 'in_progress' },
      ])
      store.setTodos('s', [], at(3))
      expect(store.getTodos('s')).toEqual([])
      expect(store.rowCounts().todos).toBe(1)

      // Client tools: a definition replaces the one of its name and moves last; oldest first, ties by name in byte order.
      for (const name of TRICKY_IDS) store.insertClientTool(name, { name, url: `http://127.0.0.1/${name}` }, at(1))
      store.insertClientTool('first', { name: 'first', v: 1 }, at(0))
      store.insertClientTool('last', { name: 'last' }, at(2))
      const names = (): unknown[] => store.clientTools().map((d) => (d as { name: string }).name)
      expect(names()).toEqual(['first', ...[...TRICKY_IDS].sort(byteOrder), 'last'])
      store.insertClientTool('first', { name: 'first', v: 2 }, at(3))
      expect(names()).toEqual([...[...TRICKY_IDS].sort(byteOrder), 'last', 'first'])
      expect(store.clientTools().at(-1)).toEqual({ name: 'first', v: 2 })
      expect(store.deleteClientTool('first')).toBe(true)
      expect(store.deleteClientTool('first')).toBe(false)
      expect(store.rowCounts().client_http_tools).toBe(TRICKY_IDS.length + 1)
    })
  })

  describe('units of work', () => {
    it('commit together or, on a throw, not at all, and say when one is open', () => {
      expect(store.inTransaction).toBe(false)
      const value = store.transaction(() => {
        expect(store.inTransaction).toBe(true)
        scheduleWith('s', 'sch', ['c1'])
        store.insertEvent(eventOf('s', 1, 'x'), AT)
        // Reads inside see the unit's own writes.
        expect(store.getCall('s', 'c1')?.status).toBe('pending')
        return 42
      })
      expect(value).toBe(42)
      expect(store.inTransaction).toBe(false)
      expect(store.rowCounts()).toMatchObject({ sessions: 1, schedules: 1, tool_calls: 1, events: 1 })

      // A throw rolls back everything the unit wrote, and what it read inside is not remembered.
      store.insertSession(session('kept'))
      store.insertProjectRule('/w', 'Read(**)', at(1))
      const before = store.rowCounts()
      expect(store.projectRulesOf('/w')).toEqual(['Read(**)'])
      expect(() =>
        store.transaction(() => {
          store.insertSession(session('gone'))
          store.setPermissionMode('kept', 'plan')
          store.insertProjectRule('/w', 'Edit(**)', at(2))
          store.insertEvent(eventOf('kept', 1, 'x'), AT)
          store.setTodos('kept', ['t'], AT)
          store.insertClientTool('tool', { name: 'tool' }, AT)
          expect(store.getSession('gone')?.id).toBe('gone')
          expect(store.permissionModeOf('kept')).toBe('plan')
          expect(store.projectRulesOf('/w')).toEqual(['Read(**)', 'Edit(**)'])
          throw new Error('changed my mind')
        }),
      ).toThrow('changed my mind')
      expect(store.inTransaction).toBe(false)
      expect(store.rowCounts()).toEqual(before)
      expect(store.getSession('gone')).toBeUndefined()
      expect(store.permissionModeOf('kept')).toBe('default')
      expect(store.projectRulesOf('/w')).toEqual(['Read(**)'])

      // deleteSession inside a unit that throws deletes nothing.
      scheduleWith('d', 'sch-d', ['c1'])
      store.insertEvent(eventOf('d', 1, 'x'), AT)
      const beforeDelete = store.rowCounts()
      expect(() =>
        store.transaction(() => {
          store.deleteSession('d')
          throw new Error('no')
        }),
      ).toThrow('no')
      expect(store.rowCounts()).toEqual(beforeDelete)
      expect(store.getSession('d')?.id).toBe('d')
    })

    it('a nested unit is a savepoint: its failure rolls back only its own writes, a conflict included', () => {
      store.transaction(() => {
        store.insertSession(session('s'))
        store.insertEvent(eventOf('s', 1, 'outer'), AT)
        expect(() =>
          store.transaction(() => {
            store.insertEvent(eventOf('s', 2, 'inner'), AT)
            store.setTodos('s', ['inner'], AT)
            throw new Error('inner fails')
          }),
        ).toThrow('inner fails')
        expect(store.inTransaction).toBe(true)
        store.transaction(() => store.insertEvent(eventOf('s', 2, 'inner, again'), AT))
        store.insertEvent(eventOf('s', 3, 'outer, after'), AT)
      })
      expect(store.eventsAfter('s', 0, 10).map((e) => e.data)).toEqual(['outer', 'inner, again', 'outer, after'])
      expect(store.getTodos('s')).toBeUndefined()

      // A conflict inside a savepoint fails that savepoint alone; the outer unit goes on and commits.
      scheduleWith('k', 'sch-k', ['c1'])
      store.insertEvent(eventOf('k', 1, 'first'), AT)
      store.transaction(() => {
        store.insertEvent(eventOf('k', 2, 'second'), AT)
        expect(() => store.transaction(() => store.insertCall({ sessionId: 'k', id: 'c1', scheduleId: 'sch-k', position: 1, name: 'Edit', input: {} }))).toThrow(StoreConflictError)
        expect(() =>
          store.transaction(() => {
            store.setTodos('k', ['lost'], AT)
            store.insertEvent(eventOf('k', 1, 'taken'), AT)
          }),
        ).toThrow(StoreConflictError)
        expect(store.inTransaction).toBe(true)
        store.insertEvent(eventOf('k', 3, 'third'), AT)
      })
      expect(store.eventsAfter('k', 0, 10).map((e) => e.data)).toEqual(['first', 'second', 'third'])
      expect(store.getTodos('k')).toBeUndefined()
      expect(store.rowCounts().tool_calls).toBe(1)

      // An inner unit whose writes were read back (so already sent) rolls back as well, three levels deep.
      store.insertSession(session('n'))
      store.transaction(() => {
        store.setTodos('n', ['outer'], AT)
        expect(() =>
          store.transaction(() => {
            store.setTodos('n', ['middle'], AT)
            store.transaction(() => store.insertEvent(eventOf('n', 1, 'innermost'), AT))
            expect(store.lastSeq('n')).toBe(1)
            expect(store.getTodos('n')).toEqual(['middle'])
            throw new Error('middle fails')
          }),
        ).toThrow('middle fails')
        expect(store.getTodos('n')).toEqual(['outer'])
        expect(store.lastSeq('n')).toBe(0)
      })
      expect(store.getTodos('n')).toEqual(['outer'])

      // The outer unit's failure takes its committed savepoints with it.
      const before = store.rowCounts()
      expect(() =>
        store.transaction(() => {
          store.transaction(() => store.insertEvent(eventOf('n', 1, 'kept by the savepoint only'), AT))
          expect(store.lastSeq('n')).toBe(1)
          throw new Error('outer fails')
        }),
      ).toThrow('outer fails')
      expect(store.rowCounts()).toEqual(before)
      expect(store.lastSeq('n')).toBe(0)
    })
  })

  describe('conflicts', () => {
    it('a taken key of any record throws StoreConflictError and writes nothing, in a unit of work too', () => {
      scheduleWith('s', 'sch', ['c1'])
      store.insertEvent(eventOf('s', 1, 'original'), AT)
      const before = store.rowCounts()
      const call = store.getCall('s', 'c1')
      expect(() => store.insertSchedule({ id: 'sch', sessionId: 's', turnId: 'other', status: 'open', groups: [], createdAt: at(9) })).toThrow(StoreConflictError)
      expect(() => store.insertCall({ sessionId: 's', id: 'c1', scheduleId: 'sch', position: 5, name: 'Bash', input: { command: 'rm' } })).toThrow(StoreConflictError)
      expect(() => store.insertEvent(eventOf('s', 1, 'replacement'), AT)).toThrow(StoreConflictError)
      expect(store.inTransaction).toBe(false)
      expect(store.rowCounts()).toEqual(before)
      expect(store.getSchedule('sch')).toMatchObject({ turnId: 'turn-sch', status: 'queued' })
      expect(store.getCall('s', 'c1')).toEqual(call)
      expect(store.eventsAfter('s', 0, 10).map((e) => e.data)).toEqual(['original'])
      // The same call id in another session is another call.
      scheduleWith('t', 'sch-t', ['c1'])
      expect(store.getCall('t', 'c1')?.scheduleId).toBe('sch-t')

      // A taken session, permission or artifact id throws StoreConflictError and writes nothing.
      store.insertSession(session('u', { sandbox: { network: true } }))
      store.insertPermission(permission('p', 'u', 'c1'))
      store.insertArtifact(artifact('a', 'u', 'c1', 1), AT)
      const beforeRefusals = store.rowCounts()
      expect(() => store.insertSession(session('u', { workspace: '/elsewhere', sandbox: { network: false } }))).toThrow(StoreConflictError)
      expect(() => store.insertPermission(permission('p', 'u', 'c2'))).toThrow(StoreConflictError)
      expect(() => store.insertArtifact(artifact('a', 'u', 'c2', 5), AT)).toThrow(StoreConflictError)
      expect(store.rowCounts()).toEqual(beforeRefusals)
      expect(store.getSession('u')).toEqual(session('u', { sandbox: { network: true } }))
      expect(store.getPermission('p')?.callId).toBe('c1')
      expect(store.artifactBytesOfSession('u')).toBe(1)

      // A conflict in a unit of work fails the unit: nothing it wrote is kept.
      scheduleWith('v', 'sch-v', ['c1'])
      store.insertEvent(eventOf('v', 1, 'original'), AT)
      const beforeUnit = store.rowCounts()
      expect(() =>
        store.transaction(() => {
          store.insertSession(session('new'))
          store.setTodos('v', ['x'], AT)
          store.insertEvent(eventOf('v', 1, 'replacement'), AT)
        }),
      ).toThrow(StoreConflictError)
      expect(store.inTransaction).toBe(false)
      expect(store.rowCounts()).toEqual(beforeUnit)
      // The store goes on working after the failed unit.
      store.transaction(() => store.insertEvent(eventOf('v', 2, 'next'), AT))
      expect(store.lastSeq('v')).toBe(2)
    })
  })

  describe('text and JSON', () => {
    const TEXT = 'naïve 日本語 עברית \u{1F469}\u200D\u{1F4BB} e\u0301 \u0001\u0007\b\t\n\v\f\r\u001b\u001f\u007f\u0085\u2028\u2029\uFEFF"\\\'`${}'

    it('unicode, control characters (NUL aside) and 1 MB of JSON round trip exactly; session ids sort in byte order', () => {
      const s = session(`id ${TEXT}`, { workspace: `/w/${TEXT}` })
      store.insertSession(s)
      expect(store.getSession(s.id)).toEqual(s)
      expect(store.sessionIds()).toEqual([s.id])
      store.insertSchedule({ id: `sch ${TEXT}`, sessionId: s.id, turnId: TEXT, status: 'queued', groups: [[TEXT]], createdAt: AT })
      store.insertCall({ sessionId: s.id, id: TEXT, scheduleId: `sch ${TEXT}`, position: 0, name: 'Write', input: { [TEXT]: TEXT } })
      const done = result(TEXT, TEXT)
      store.completeCall(s.id, done, AT)
      const call = store.getCall(s.id, TEXT)
      expect(call?.input).toEqual({ [TEXT]: TEXT })
      expect(JSON.stringify(call?.result)).toBe(JSON.stringify(done))
      expect(store.history(s.id)[0]?.turnId).toBe(TEXT)
      store.insertEvent(eventOf(s.id, 1, JSON.stringify({ text: TEXT })), AT)
      store.insertEvent(eventOf(s.id, 2, TEXT), AT)
      expect(store.eventsAfter(s.id, 0, 10).map((e) => e.data)).toEqual([JSON.stringify({ text: TEXT }), TEXT])
      store.insertProjectRule(TEXT, TEXT, AT)
      expect(store.projectRulesOf(TEXT)).toEqual([TEXT])
      store.insertGrant(s.id, TEXT, TEXT, AT)
      expect(store.hasGrant(s.id, TEXT, TEXT)).toBe(true)
      store.setTodos(s.id, { [TEXT]: [TEXT] }, AT)
      expect(store.getTodos(s.id)).toEqual({ [TEXT]: [TEXT] })

      // Large JSON (1 MB) round trips exactly.
      const big = 'x\u00e9\u{1F600}'.repeat(150_000) // over 1 MB of UTF-8
      expect(Buffer.byteLength(big)).toBeGreaterThan(1_000_000)
      scheduleWith('s', 'sch', ['c1'])
      const bigResult = result('c1', big)
      store.completeCall('s', bigResult, AT)
      const data = JSON.stringify({ type: 'ToolCallResult', result: bigResult })
      store.insertEvent(eventOf('s', 1, data), AT)
      store.setTodos('s', [{ content: big }], AT)
      store.insertClientTool('big', { name: 'big', description: big }, AT)
      expect(JSON.stringify(store.getCall('s', 'c1')?.result)).toBe(JSON.stringify(bigResult))
      expect(store.eventsAfter('s', 0, 1)[0]?.data).toBe(data)
      expect(store.eventsAfter('s', 0, 10, 10)).toHaveLength(1)
      expect(store.getTodos('s')).toEqual([{ content: big }])
      expect(store.clientTools()).toEqual([{ name: 'big', description: big }])

      // Unfinished schedules are ordered by session id in byte order.
      for (const id of TRICKY_IDS) scheduleWith(id, `sch-${id}`, [])
      expect(
        store
          .unfinishedSchedules()
          .map((s) => s.sessionId)
          .filter((id) => TRICKY_IDS.includes(id)),
      ).toEqual([...TRICKY_IDS].sort(byteOrder))
    })
  })

  describe('reopening', () => {
    it('keeps everything written, and opening again migrates nothing twice', () => {
      store.insertSession(session('s', { sandbox: { writablePaths: ['/tmp/x'] }, permissionTimeoutMs: 1000 }))
      scheduleWith('s', 'sch', ['c1', 'c2'])
      store.markCallRunning('s', 'c1', { file_path: 'c1.txt' }, FLAGS, at(1))
      store.completeCall('s', result('c1', 'done'), at(2))
      store.markSchedulesAborted('s', at(3))
      store.insertPermission(permission('p', 's', 'c2'))
      store.insertGrant('s', 'Bash', 'ls', AT)
      store.insertProjectRule('/w', 'Read(**)', AT)
      store.insertArtifact(artifact('a', 's', 'c1', 12), AT)
      store.setTodos('s', [{ content: 'todo' }], AT)
      store.insertClientTool('tool', { name: 'tool' }, AT)
      for (let seq = 1; seq <= 3; seq++) store.insertEvent(eventOf('s', seq, `e${seq}`), AT)
      const counts = store.rowCounts()
      const calls = store.callsOfSchedule('sch')
      reopen()
      reopen()
      expect(store.rowCounts()).toEqual(counts)
      expect(store.getSession('s')).toEqual(session('s', { sandbox: { writablePaths: ['/tmp/x'] }, permissionTimeoutMs: 1000 }))
      expect(store.callsOfSchedule('sch')).toEqual(calls)
      expect(store.scheduleAborted('sch')).toBe(true)
      expect(store.pendingPermissions().map((p) => p.id)).toEqual(['p'])
      expect(store.hasGrant('s', 'Bash', 'ls')).toBe(true)
      expect(store.projectRulesOf('/w')).toEqual(['Read(**)'])
      expect(store.getArtifact('s', 'a')?.bytes).toBe(12)
      expect(store.getTodos('s')).toEqual([{ content: 'todo' }])
      expect(store.clientTools()).toEqual([{ name: 'tool' }])
      expect(store.lastSeq('s')).toBe(3)
      // The next seq goes on from where it was.
      store.insertEvent(eventOf('s', 4, 'e4'), AT)
      expect(() => store.insertEvent(eventOf('s', 3, 'again'), AT)).toThrow(StoreConflictError)
      expect(store.unfinishedSchedules().map((s) => s.id)).toEqual(['sch'])
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
