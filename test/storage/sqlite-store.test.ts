/** What only the SQLite store has: its columns, its caches of committed rows, and how its units of work run. */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreConflictError, type UnitOfWork } from '../../src/contracts/store.js'
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

const result = succeededResult

const count = (table: string): number => store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number

/** A session with one schedule of `calls` (ids), all pending. */
function scheduleWith(sessionId: string, scheduleId: string, calls: string[]): Promise<void> {
  return store.commit((u) => {
    u.sessions.insert(session(sessionId))
    u.schedules.insert({ id: scheduleId, sessionId, turnId: `turn-${scheduleId}`, status: 'queued', groups: calls.map((id) => [id]), createdAt: AT })
    calls.forEach((id, position) => u.schedules.insertCall({ sessionId, id, scheduleId, position, name: 'Edit', input: { file_path: `${id}.txt` } }))
  })
}

describe('SqliteStore columns', () => {
  it('a resolved input equal to the input is not stored twice, and still reads back as the resolved input', async () => {
    await scheduleWith('a', 'sch-1', ['same', 'changed', 'waiting'])
    await store.commit((u) => {
      u.schedules.markCallRunning('a', 'same', { file_path: 'same.txt' }, toolFlags(), AT)
      u.schedules.markCallRunning('a', 'changed', { file_path: '/abs/changed.txt' }, toolFlags(), AT)
    })
    expect(store.db.prepare('SELECT id, resolved_input_json FROM tool_calls ORDER BY id').all()).toEqual([
      { id: 'changed', resolved_input_json: '{"file_path":"/abs/changed.txt"}' },
      { id: 'same', resolved_input_json: null },
      { id: 'waiting', resolved_input_json: null },
    ])
    expect((await store.schedules.call('a', 'same'))?.resolvedInput).toEqual({ file_path: 'same.txt' })
    expect((await store.schedules.call('a', 'waiting'))?.resolvedInput).toBeUndefined()
    expect((await store.schedules.calls('sch-1')).map((call) => call.resolvedInput)).toEqual([{ file_path: 'same.txt' }, { file_path: '/abs/changed.txt' }, undefined])
  })

  it('a result is stored once, whole: no part of it in a column of its own', async () => {
    await scheduleWith('a', 'sch-1', ['c1'])
    const denied = result('c1', 'Not that file', { success: false, status: 'denied', isError: true, permission: 'denied' })
    await store.commit((u) => u.schedules.completeCall('a', denied, '2026-01-02T03:04:06.000Z'))
    const raw = store.db.prepare("SELECT status, completed_at, result_json FROM tool_calls WHERE id = 'c1'").get()
    expect(raw).toEqual({ status: 'denied', completed_at: '2026-01-02T03:04:06.000Z', result_json: JSON.stringify(denied) })
    expect((await store.schedules.call('a', 'c1'))?.result).toEqual(denied)
  })
})

describe('SqliteStore units of work', () => {
  it('a unit is committed before commit returns: its rows are in the file at once', () => {
    void store.commit((u) => u.sessions.insert(session('a')))
    expect(count('sessions')).toBe(1)
  })

  it('never throws: a build that throws, a taken key and a closed database all reject', async () => {
    const thrown = store.commit(() => {
      throw new Error('boom')
    })
    await expect(thrown).rejects.toThrow('boom')
    await store.commit((u) => u.sessions.insert(session('a')))
    await expect(store.commit((u) => u.sessions.insert(session('a')))).rejects.toThrow(StoreConflictError)
    store.db.close()
    await expect(store.commit((u) => u.sessions.insert(session('b')))).rejects.toThrow(/not open/)
    await expect(store.sessions.ids()).rejects.toThrow(/not open/)
    await expect(store.events.lastSeq('a')).rejects.toThrow(/not open/)
  })

  it('a commit inside a build is refused with a clear error, and the unit it was called from writes nothing', async () => {
    let inner: Promise<void> | undefined
    const outer = store.commit((u) => {
      u.sessions.insert(session('outer'))
      inner = store.commit((v) => v.sessions.insert(session('inner')))
    })
    await expect(outer).rejects.toThrow(/commit was called inside the build of another unit of work/)
    expect(inner).toBeUndefined()
    expect(count('sessions')).toBe(0)
    // The store goes on.
    await store.commit((u) => u.sessions.insert(session('after')))
    expect(count('sessions')).toBe(1)
  })

  it('a writer kept past its build writes nothing, and says why', async () => {
    let kept: UnitOfWork | undefined
    await store.commit((u) => {
      kept = u
    })
    expect(() => kept?.sessions.insert(session('late'))).toThrow(/only while its build runs/)
    expect(count('sessions')).toBe(0)
  })

  it('a build that returns a promise is refused and writes nothing: a unit is built without waiting', async () => {
    const asynchronous = store.commit(async (u) => {
      u.sessions.insert(session('a'))
      await Promise.resolve()
    })
    await expect(asynchronous).rejects.toThrow(/promise/)
    expect(count('sessions')).toBe(0)
  })
})

describe('SqliteStore caches of committed rows', () => {
  it('sessions and project rules read inside a unit that rolls back are not remembered', async () => {
    await store.commit((u) => u.sessions.insert(session('kept')))
    // The contract says a build reads nothing; one that does must still leave no rolled-back row behind.
    let readInside: Promise<unknown>[] = []
    await expect(
      store.commit((u) => {
        u.sessions.insert(session('ghost'))
        u.sessions.setPermissionMode('kept', 'plan')
        u.rules.insertProjectRule('/w', 'Edit(**)', AT)
        readInside = [store.sessions.get('ghost'), store.sessions.get('kept'), store.rules.projectRulesOf('/w')]
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    expect(await Promise.all(readInside)).toEqual([session('ghost'), { ...session('kept'), permissionMode: 'plan' }, ['Edit(**)']])
    expect(await store.sessions.get('ghost')).toBeUndefined()
    expect((await store.sessions.get('kept'))?.permissionMode).toBe('default')
    expect(await store.rules.projectRulesOf('/w')).toEqual([])
  })

  it('every write of a cached row is read at once: a mode, a deletion, a rule added, granted or deleted', async () => {
    await store.commit((u) => {
      u.sessions.insert(session('s', { workspace: '/w' }))
      u.approvals.insert({ id: 'p', sessionId: 's', callId: 'c', toolName: 'Bash', input: {}, preview: undefined, riskLevel: 'low', reason: 'r', suggestedRule: 'Bash(ls)', createdAt: AT })
    })
    const rules = (): Promise<string[]> => store.rules.projectRulesOf('/w')
    expect((await store.sessions.get('s'))?.permissionMode).toBe('default')
    expect(await rules()).toEqual([])
    await store.commit((u) => u.sessions.setPermissionMode('s', 'acceptEdits'))
    expect((await store.sessions.get('s'))?.permissionMode).toBe('acceptEdits')
    await store.commit((u) => u.rules.insertProjectRule('/w', 'Read(**)', '2026-01-02T03:04:06.000Z'))
    expect(await rules()).toEqual(['Read(**)'])
    await store.commit((u) => u.rules.projectRuleFor('p', '2026-01-02T03:04:07.000Z'))
    expect(await rules()).toEqual(['Read(**)', 'Bash(ls)'])
    const [first] = await store.rules.projectRules()
    await store.commit((u) => u.rules.deleteProjectRule(first?.id ?? ''))
    expect(await rules()).toEqual(['Bash(ls)'])
    await store.commit((u) => u.sessions.delete('s'))
    expect(await store.sessions.get('s')).toBeUndefined()
  })
})

describe('SqliteStore on reopening', () => {
  it('everything stored is there after the database is closed and opened again', async () => {
    await scheduleWith('a', 'sch-1', ['c1'])
    await store.commit((u) => {
      u.schedules.completeCall('a', result('c1', 'done'), AT)
      u.events.insert({ sessionId: 'a', seq: 1, type: 'T', data: '{}' }, AT)
    })
    expect(await store.sessions.get('a')).toEqual(session('a'))
    store.db.close()
    store = new SqliteStore(openDatabase(path.join(dir, 'toolexec.db')))
    expect(await store.sessions.get('a')).toEqual(session('a'))
    expect((await store.schedules.call('a', 'c1'))?.result).toEqual(result('c1', 'done'))
    expect(await store.events.lastSeq('a')).toBe(1)
  })
})
