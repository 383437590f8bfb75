/**
 * The audit log's store (migration 016), on both backends: entries appended in the unit of the
 * change they record (committed with it or not at all), chained by hash in the database, paged
 * and filtered; and the chain telling an entry edited, removed or reordered by SQL of the
 * test's own, as someone with the database in hand would.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NewAuditEntry } from '../../src/contracts/audit.js'
import { StoreConflictError, type OpenedStore, type Store } from '../../src/contracts/store.js'
import { allEntries, GENESIS_HASH, type ChainReport, sha256Hex, verifyChain } from '../../src/storage/audit-chain.js'
import { openStore, SQLITE_FILE } from '../../src/storage/open-store.js'
import { tamperAuditLog } from '../support/audit-tamper.js'
import { sessionRecord } from '../support/store-records.js'
import { tempDir } from '../support/temp-dirs.js'
import { dropDatabase, freshDatabaseUrl, testBackend } from '../support/test-database.js'

const logger = pino({ level: 'silent' })

let dataDir: string
let databaseUrl: string | undefined
let opened: OpenedStore
let store: Store

const at = (second: number): string => `2026-01-02T03:04:${String(second).padStart(2, '0')}.000Z`

function entry(second: number, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
  return { at: at(second), kind: 'key.minted', actor: { id: 'admin', name: 'administrator' }, sessionId: null, detail: { keyId: `key_${second}`, note: 'línea\n"dos"' }, ...overrides }
}

const verify = () => verifyChain(allEntries(store.audit, 2))

const tamper = (statements: readonly string[]): Promise<void> => tamperAuditLog({ dataDir, databaseUrl }, statements)

function expectBroken(report: ChainReport, expected: Partial<Omit<ChainReport, 'broken'>> & { broken: { seq: number } }, why: string): void {
  expect(report).toMatchObject(expected)
  expect(report.broken?.reason).toContain(why)
}

async function appendFive(): Promise<void> {
  for (let second = 1; second <= 5; second++) await store.commit((u) => u.audit.append(entry(second)))
}

describe(`the audit log on ${testBackend()}`, () => {
  beforeEach(async () => {
    dataDir = await tempDir('audit-log')
    databaseUrl = await freshDatabaseUrl()
    opened = await openStore({ dataDir, databaseUrl, logger })
    store = opened.store
  })

  afterEach(async () => {
    await opened.close()
    if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
  })

  it('chains each entry to the one before, in the database, with the hash anyone can recompute', async () => {
    expect(await verify()).toEqual({ ok: true, count: 0, head: GENESIS_HASH, headSeq: 0 })
    await appendFive()
    const entries = await store.audit.page({ after: 0, limit: 10 })
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5])
    expect(entries[0]?.prevHash).toBe(GENESIS_HASH)
    const first = entries[0]
    const body = `["${at(1)}","key.minted","admin","administrator",null,${first?.detailJson}]`
    expect(first?.hash).toBe(sha256Hex(`${GENESIS_HASH}\n1\n${body}`))
    for (let i = 1; i < entries.length; i++) expect(entries[i]?.prevHash).toBe(entries[i - 1]?.hash)
    expect(JSON.parse(first?.detailJson ?? '')).toEqual({ keyId: 'key_1', note: 'línea\n"dos"' })
    expect(await verify()).toEqual({ ok: true, count: 5, head: entries[4]?.hash, headSeq: 5 })
  })

  it('keeps an entry only when the change it records commits', async () => {
    await store.commit((u) => u.sessions.insert(sessionRecord('s1')))
    await expect(
      store.commit((u) => {
        u.audit.append(entry(1, { kind: 'session.deleted', sessionId: 's1' }))
        u.sessions.insert(sessionRecord('s1'))
      }),
    ).rejects.toThrow(StoreConflictError)
    await expect(
      store.commit((u) => {
        u.audit.append(entry(2))
        throw new Error('the build failed')
      }),
    ).rejects.toThrow('the build failed')
    expect(await store.audit.page({ after: 0, limit: 10 })).toEqual([])
    await store.commit((u) => {
      u.audit.append(entry(3, { kind: 'session.deleted', sessionId: 's1' }))
      u.sessions.delete('s1')
    })
    expect((await store.audit.page({ after: 0, limit: 10 })).map((e) => [e.seq, e.sessionId])).toEqual([[1, 's1']])
  })

  it('pages after a seq and filters by kind, actor, session and time', async () => {
    await store.commit((u) => {
      u.audit.append(entry(1))
      u.audit.append(entry(2, { kind: 'approval.answered', actor: { id: 'key_a', name: 'Ana' }, sessionId: 's1' }))
    })
    await store.commit((u) => u.audit.append(entry(3, { kind: 'approval.decided', actor: { id: 'server', name: 'timeout' }, sessionId: 's2' })))
    await store.commit((u) => u.audit.append(entry(4, { kind: 'approval.answered', actor: { id: 'key_a', name: 'Ana' }, sessionId: 's2' })))
    const seqs = async (query: Parameters<Store['audit']['page']>[0]): Promise<number[]> => (await store.audit.page(query)).map((e) => e.seq)
    expect(await seqs({ after: 0, limit: 2 })).toEqual([1, 2])
    expect(await seqs({ after: 2, limit: 2 })).toEqual([3, 4])
    expect(await seqs({ after: 0, limit: 10, kind: 'approval.answered' })).toEqual([2, 4])
    expect(await seqs({ after: 0, limit: 10, actor: 'key_a' })).toEqual([2, 4])
    expect(await seqs({ after: 0, limit: 10, sessionId: 's2' })).toEqual([3, 4])
    expect(await seqs({ after: 0, limit: 10, since: at(2), until: at(4) })).toEqual([2, 3])
    expect(await seqs({ after: 2, limit: 10, actor: 'key_a', sessionId: 's2', kind: 'approval.answered' })).toEqual([4])
  })

  it('refuses an UPDATE or DELETE of an entry', async () => {
    await appendFive()
    const sql = async (text: string): Promise<void> => {
      if (databaseUrl === undefined) {
        const db = new Database(path.join(dataDir, SQLITE_FILE))
        try {
          db.exec(text)
        } finally {
          db.close()
        }
        return
      }
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      await client.query(text).finally(() => client.end())
    }
    await expect(sql("UPDATE audit_log SET actor_name = 'someone else' WHERE seq = 2")).rejects.toThrow(/append-only/)
    await expect(sql('DELETE FROM audit_log WHERE seq = 5')).rejects.toThrow(/append-only/)
    expect((await verify()).count).toBe(5)
  })

  it('tells an entry edited', async () => {
    await appendFive()
    await tamper(['UPDATE audit_log SET detail_json = \'{"keyId":"key_other"}\' WHERE seq = 3'])
    expectBroken(await verify(), { ok: false, count: 2, headSeq: 2, broken: { seq: 3 } }, 'edited')
  })

  it('tells an entry edited with its hash recomputed by its own rule: the next link breaks', async () => {
    await appendFive()
    const [third] = await store.audit.page({ after: 2, limit: 1 })
    const body = `["${third?.at}","key.minted","key_forged","forger",null,${third?.detailJson}]`
    await tamper([`UPDATE audit_log SET actor_id = 'key_forged', actor_name = 'forger', hash = '${sha256Hex(`${third?.prevHash}\n3\n${body}`)}' WHERE seq = 3`])
    expectBroken(await verify(), { ok: false, broken: { seq: 4 } }, 'prev_hash')
  })

  it('tells an entry removed', async () => {
    await appendFive()
    await tamper(['DELETE FROM audit_log WHERE seq = 2'])
    expectBroken(await verify(), { ok: false, count: 1, broken: { seq: 3 } }, 'removed')
    await tamper(['UPDATE audit_log SET seq = seq - 1 WHERE seq > 2'])
    expect(await verify()).toMatchObject({ ok: false, count: 1, broken: { seq: 2 } })
  })

  it('tells entries reordered', async () => {
    await appendFive()
    await tamper(['UPDATE audit_log SET seq = 100 WHERE seq = 2', 'UPDATE audit_log SET seq = 2 WHERE seq = 3', 'UPDATE audit_log SET seq = 3 WHERE seq = 100'])
    expect(await verify()).toMatchObject({ ok: false, count: 1, broken: { seq: 2 } })
  })

  it('chains units committed at once into one line, with no seq twice', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => store.commit((u) => u.audit.append(entry(i + 1)))))
    expect(await verify()).toMatchObject({ ok: true, count: 12, headSeq: 12 })
  })

  // Servers sharing one PostgreSQL database each have their own pool; SQLite has one server per file (the data directory's lock).
  if (testBackend() === 'postgres') {
    it('chains the units of two servers on one database into one line', async () => {
      const second = await openStore({ dataDir, databaseUrl, logger })
      try {
        const append = (target: Store, second: number) => target.commit((u) => u.audit.append(entry(second)))
        await Promise.all(Array.from({ length: 16 }, (_, i) => append(i % 2 === 0 ? store : second.store, i + 1)))
      } finally {
        await second.close()
      }
      expect(await verify()).toMatchObject({ ok: true, count: 16, headSeq: 16 })
    })
  }
})
