import { rm } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ArtifactRef } from '../../src/contracts/ports.js'
import { StoreConflictError } from '../../src/contracts/store.js'
import { openDatabase } from '../../src/storage/sqlite/database.js'
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js'
import { tempDir } from '../support/temp-dirs.js'
import { sessionRecord, STORE_TEST_AT, succeededResult, toolFlags } from '../support/store-records.js'

let dir: string
let store: SqliteStore

beforeEach(async () => {
  dir = await tempDir('store')
  store = new SqliteStore(openDatabase(path.join(dir, 'toolexec.db')))
})

afterEach(async () => {
  if (store.db.open) store.db.close()
  await rm(dir, { recursive: true, force: true })
})

const AT = STORE_TEST_AT

const session = sessionRecord

const FLAGS = toolFlags()

const result = succeededResult

/** A session with one schedule of `calls` (ids), all pending. */
function scheduleWith(sessionId: string, scheduleId: string, calls: string[], turnId = `turn-${scheduleId}`): void {
  if (store.getSession(sessionId) === undefined) store.insertSession(session(sessionId))
  store.insertSchedule({ id: scheduleId, sessionId, turnId, status: 'queued', groups: calls.map((id) => [id]), createdAt: AT })
  calls.forEach((id, position) => store.insertCall({ sessionId, id, scheduleId, position, name: 'Edit', input: { file_path: `${id}.txt` } }))
}

describe('SqliteStore round trips', () => {
  it('sessions: every field comes back as stored, booleans and nulls included', () => {
    const a = session('a')
    const b = session('b', { permissionMode: 'bypassPermissions', interactive: false, permissionTimeoutMs: 5000 })
    store.insertSession(a)
    store.insertSession(b)
    expect(store.getSession('a')).toEqual(a)
    expect(store.getSession('b')).toEqual(b)
    expect(store.getSession('c')).toBeUndefined()
    expect(store.sessionIds().sort()).toEqual(['a', 'b'])
    expect(() => store.insertSession(a)).toThrow(StoreConflictError)
  })

  it('schedules: arrival counts per session, groups and status change, unfinished ones listed in arrival order', () => {
    scheduleWith('a', 'sch-1', ['c1'])
    scheduleWith('a', 'sch-2', ['c2'])
    scheduleWith('b', 'sch-3', ['c1'])
    expect([store.getSchedule('sch-1')?.arrival, store.getSchedule('sch-2')?.arrival, store.getSchedule('sch-3')?.arrival]).toEqual([1, 2, 1])
    expect(store.getSchedule('sch-1')).toEqual({ id: 'sch-1', sessionId: 'a', turnId: 'turn-sch-1', arrival: 1, status: 'queued', groups: [['c1']], createdAt: AT, completedAt: null })
    store.setScheduleGroups('sch-2', [['c2', 'c9']])
    store.setScheduleStatus('sch-1', 'completed', AT)
    expect(store.getSchedule('sch-1')).toMatchObject({ status: 'completed', completedAt: AT })
    expect(store.getSchedule('sch-2')?.groups).toEqual([['c2', 'c9']])
    expect(store.unfinishedSchedules().map((schedule) => schedule.id)).toEqual(['sch-2', 'sch-3'])
    expect(store.getSchedule('nope')).toBeUndefined()
  })

  it('calls: a resolved input equal to the input is not stored twice, and still reads back as the resolved input', () => {
    scheduleWith('a', 'sch-1', ['same', 'changed', 'waiting'])
    store.markCallRunning('a', 'same', { file_path: 'same.txt' }, FLAGS, AT)
    store.markCallRunning('a', 'changed', { file_path: '/abs/changed.txt' }, FLAGS, AT)
    const stored = store.db.prepare('SELECT id, resolved_input_json FROM tool_calls ORDER BY id').all()
    expect(stored).toEqual([
      { id: 'changed', resolved_input_json: '{"file_path":"/abs/changed.txt"}' },
      { id: 'same', resolved_input_json: null },
      { id: 'waiting', resolved_input_json: null },
    ])
    expect(store.getCall('a', 'same')?.resolvedInput).toEqual({ file_path: 'same.txt' })
    expect(store.getCall('a', 'changed')?.resolvedInput).toEqual({ file_path: '/abs/changed.txt' })
    expect(store.getCall('a', 'waiting')?.resolvedInput).toBeUndefined()
    expect(store.callsOfSchedule('sch-1').map((call) => call.resolvedInput)).toEqual([{ file_path: 'same.txt' }, { file_path: '/abs/changed.txt' }, undefined])
  })

  it('a schedule id or a call id of the session taken again is a StoreConflictError, and writes nothing', () => {
    scheduleWith('a', 'sch-1', ['c1'])
    const before = store.rowCounts()
    expect(() => store.insertSchedule({ id: 'sch-1', sessionId: 'a', turnId: 't2', status: 'queued', groups: [], createdAt: AT })).toThrow(StoreConflictError)
    expect(() => store.insertCall({ sessionId: 'a', id: 'c1', scheduleId: 'sch-1', position: 1, name: 'Read', input: {} })).toThrow(StoreConflictError)
    expect(store.rowCounts()).toEqual(before)
  })

  it('calls: input, dependencies, resolved input, flags, status and the full result come back exactly', () => {
    scheduleWith('a', 'sch-1', ['c1'])
    store.insertCall({ sessionId: 'a', id: 'c2', scheduleId: 'sch-1', position: 1, name: 'Read', input: { file_path: 'é.txt', n: [1, 2] }, dependsOn: ['c1'] })
    expect(store.getCall('b', 'c2')).toBeUndefined()
    expect(store.getCall('a', 'c2')).toMatchObject({
      name: 'Read',
      input: { file_path: 'é.txt', n: [1, 2] },
      dependsOn: ['c1'],
      status: 'pending',
      resolvedInput: undefined,
      flags: undefined,
      result: undefined,
      startedAt: null,
    })

    store.setCallStatus('a', 'c1', 'awaiting_permission')
    expect(store.getCall('a', 'c1')?.status).toBe('awaiting_permission')
    store.markCallRunning('a', 'c1', { file_path: '/abs/c1.txt' }, FLAGS, AT)
    expect(store.getCall('a', 'c1')).toMatchObject({ status: 'running', resolvedInput: { file_path: '/abs/c1.txt' }, flags: FLAGS, startedAt: AT })

    const failed = result('c1', 'Not that file', {
      success: false,
      status: 'denied',
      isError: true,
      output: undefined,
      error: { message: 'Not that file', stage: 'permission', errorClass: 'permission_denied', code: 'EXEC_ERR_PERMISSION_DENIED' },
      permission: 'denied',
    })
    store.completeCall('a', failed, '2026-01-02T03:04:06.000Z')
    const row = store.getCall('a', 'c1')
    expect(row?.result).toEqual(failed)
    expect(row).toMatchObject({ status: 'denied', completedAt: '2026-01-02T03:04:06.000Z' })
    // Stored once, whole: no part of it in a column of its own.
    const raw = store.db.prepare("SELECT status, completed_at, result_json FROM tool_calls WHERE id = 'c1'").get()
    expect(raw).toEqual({ status: 'denied', completed_at: '2026-01-02T03:04:06.000Z', result_json: JSON.stringify(failed) })
    expect(store.callsOfSchedule('sch-1').map((call) => call.id)).toEqual(['c1', 'c2'])
  })

  it('history: only terminal records, in schedule arrival then call position, each with its turn', () => {
    scheduleWith('a', 'sch-1', ['c1', 'c2'], 'turn-1')
    scheduleWith('a', 'sch-2', ['c3', 'c4'], 'turn-2')
    const blocks = [{ type: 'text' as const, text: 'a block' }]
    store.completeCall('a', result('c3', 'third'), AT)
    store.completeCall('a', result('c2', 'second', { modelContent: blocks }), AT)
    store.completeCall('a', result('c1', 'first'), AT)
    const history = store.history('a')
    expect(history.map((row) => [row.id, row.turnId, row.result?.modelContent])).toEqual([
      ['c1', 'turn-1', 'first'],
      ['c2', 'turn-1', blocks],
      ['c3', 'turn-2', 'third'],
    ])
    expect(store.sessionCounts('a')).toEqual({ schedules: 2, calls: 4, pendingPermissions: 0 })
  })

  it('permissions: pending lists by session and by call; the first decision is the one kept', () => {
    scheduleWith('a', 'sch-1', ['c1', 'c2'])
    scheduleWith('b', 'sch-2', ['c1'])
    const request = {
      callId: 'c1',
      toolName: 'Edit',
      input: { file_path: 'x' },
      preview: { text: 'diff' },
      riskLevel: 'medium' as const,
      reason: 'Tool Edit requires approval',
      suggestedRule: 'Edit',
      createdAt: AT,
    }
    store.insertPermission({ ...request, id: 'perm_1', sessionId: 'a' })
    store.insertPermission({ ...request, id: 'perm_2', sessionId: 'b', preview: undefined, suggestedRule: null })
    expect(store.getPermission('perm_1')).toEqual({ ...request, id: 'perm_1', sessionId: 'a', status: 'pending', decidedBy: null, message: null, scope: null, decidedAt: null })
    expect(store.getPermission('perm_2')).toMatchObject({ preview: undefined, suggestedRule: null })
    expect(store.pendingPermissions().map((p) => p.id)).toEqual(['perm_1', 'perm_2'])
    expect(store.pendingPermissions('b').map((p) => p.id)).toEqual(['perm_2'])
    expect(store.lastPermissionForCall('a', 'c1')?.id).toBe('perm_1')
    expect(store.sessionCounts('a').pendingPermissions).toBe(1)

    store.decidePermission('perm_1', { status: 'deny', decidedBy: 'client', message: 'no', scope: 'once', decidedAt: AT })
    store.decidePermission('perm_1', { status: 'allow', decidedBy: 'timeout', message: null, scope: null, decidedAt: AT })
    expect(store.getPermission('perm_1')).toMatchObject({ status: 'deny', decidedBy: 'client', message: 'no', scope: 'once', decidedAt: AT })
    expect(store.pendingPermissions().map((p) => p.id)).toEqual(['perm_2'])
    expect(store.lastPermissionForCall('a', 'c1')).toMatchObject({ id: 'perm_1', status: 'deny' })
  })

  it('grants: one per session, tool and rule key, stored once', () => {
    store.insertSession(session('a'))
    store.insertGrant('a', 'Edit', 'Edit', AT)
    store.insertGrant('a', 'Edit', 'Edit', AT)
    expect(store.hasGrant('a', 'Edit', 'Edit')).toBe(true)
    expect(store.hasGrant('a', 'Write', 'Edit')).toBe(false)
    expect(store.hasGrant('b', 'Edit', 'Edit')).toBe(false)
    expect(store.rowCounts().session_grants).toBe(1)
  })

  it('artifacts: every field comes back, and only under its own session', () => {
    const ref: ArtifactRef = {
      id: 'tool-result-1',
      sessionId: 'a',
      callId: 'c1',
      path: '/data/cli/artifacts/a/c1-tool-result-1.txt',
      uri: 'toolexec-artifact://a/tool-result-1',
      bytes: 12345,
      mediaType: 'text/plain',
      retention: 'session',
      sha256: 'ab'.repeat(32),
    }
    store.insertArtifact(ref, AT)
    expect(store.getArtifact('a', 'tool-result-1')).toEqual({ ...ref, createdAt: AT })
    expect(store.getArtifact('b', 'tool-result-1')).toBeUndefined()
  })

  it('events: read after a seq with a limit, last seq per session, and one seq stored once', () => {
    for (const [sessionId, seq] of [
      ['a', 1],
      ['a', 2],
      ['b', 1],
      ['a', 3],
    ] as const) {
      store.insertEvent({ sessionId, seq, type: 'T', data: `{"seq":${seq}}` }, AT)
    }
    expect(store.eventsAfter('a', 0, 10).map((event) => event.seq)).toEqual([1, 2, 3])
    expect(store.eventsAfter('a', 1, 1)).toEqual([{ sessionId: 'a', seq: 2, type: 'T', data: '{"seq":2}' }])
    expect(store.eventsAfter('a', 3, 10)).toEqual([])
    expect([store.lastSeq('a'), store.lastSeq('b'), store.lastSeq('c')]).toEqual([3, 1, 0])
    expect(() => store.insertEvent({ sessionId: 'a', seq: 2, type: 'T', data: '{}' }, AT)).toThrow(StoreConflictError)
  })

  it('events: a page also ends at the event that brings its data to maxChars, and has one event at least', () => {
    for (const seq of [1, 2, 3, 4]) store.insertEvent({ sessionId: 'a', seq, type: 'T', data: 'x'.repeat(100) }, AT)
    expect(store.eventsAfter('a', 0, 10, 250).map((event) => event.seq)).toEqual([1, 2, 3])
    expect(store.eventsAfter('a', 3, 10, 250).map((event) => event.seq)).toEqual([4])
    expect(store.eventsAfter('a', 0, 10, 1).map((event) => event.seq)).toEqual([1])
    expect(store.eventsAfter('a', 0, 2, 10_000).map((event) => event.seq)).toEqual([1, 2])
  })

  it('sessions read inside a rolled-back transaction, or changed since, never come back stale', () => {
    expect(() =>
      store.transaction(() => {
        store.insertSession(session('ghost'))
        expect(store.getSession('ghost')?.id).toBe('ghost')
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(store.getSession('ghost')).toBeUndefined()
    store.insertSession(session('a'))
    expect(store.permissionModeOf('a')).toBe('default')
    store.setPermissionMode('a', 'plan')
    expect(store.getSession('a')?.permissionMode).toBe('plan')
    expect(store.permissionModeOf('a')).toBe('plan')
    expect(store.permissionModeOf('nobody')).toBeUndefined()
  })

  it('a transaction that throws leaves nothing behind', () => {
    expect(() =>
      store.transaction(() => {
        store.insertSession(session('a'))
        store.insertEvent({ sessionId: 'a', seq: 1, type: 'T', data: '{}' }, AT)
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(store.getSession('a')).toBeUndefined()
    expect(store.lastSeq('a')).toBe(0)
  })

  it('everything stored is there after the database is closed and opened again', () => {
    scheduleWith('a', 'sch-1', ['c1'])
    store.completeCall('a', result('c1', 'done'), AT)
    store.insertEvent({ sessionId: 'a', seq: 1, type: 'T', data: '{}' }, AT)
    const counts = store.rowCounts()
    store.db.close()
    store = new SqliteStore(openDatabase(path.join(dir, 'toolexec.db')))
    expect(store.rowCounts()).toEqual(counts)
    expect(store.getCall('a', 'c1')?.result).toEqual(result('c1', 'done'))
  })
})
