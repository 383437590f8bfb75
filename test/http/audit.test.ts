/**
 * The audit log through the real routes: an approval answered by a key names that key, a key
 * minted and revoked, a project rule a grant added and then removed, an approval nobody
 * answered in time, a session deleted (its entries outlive it); GET /audit filtered and paged;
 * and `toolexec audit verify` run as a child process on the server's database.
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedKey } from '../../src/contracts/api-keys.js'
import type { AuditEntry, AuditPage } from '../../src/contracts/audit.js'
import { AUDIT_USAGE } from '../../src/audit-command.js'
import { helpText } from '../../src/config.js'
import { tamperAuditLog } from '../support/audit-tamper.js'
import { runRefusedMain } from '../support/main-process.js'
import { bearer, keyedJson } from '../support/keyed-requests.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDir } from '../support/temp-dirs.js'
import { until } from '../support/until.js'

const TOKEN = 'admin-token-7c1e9b3d5a'
const ADMIN = { authorization: `Bearer ${TOKEN}` }

let server: TestServer
let counter = 0
const fresh = (prefix: string): string => `${prefix}-${++counter}`

const json = keyedJson(() => server, ADMIN)

const keyBearer = (key: CreatedKey): Record<string, string> => bearer(key.secret)

async function mint(body: Record<string, unknown>): Promise<CreatedKey> {
  const reply = await json<CreatedKey>('POST', '/keys', { name: fresh('key'), ...body })
  expect(reply.status, reply.text).toBe(201)
  return reply.body
}

async function audit(query = ''): Promise<AuditEntry[]> {
  const reply = await json<AuditPage>('GET', `/audit${query}`)
  expect(reply.status, reply.text).toBe(200)
  return reply.body.entries
}

/** A session of its own workspace whose Edit waits for approval. */
async function pendingEdit(createSession: Record<string, unknown> = {}): Promise<{ session: string; permission: string; schedule: string }> {
  const session = fresh('audited')
  const workspace = await tempDir('audit')
  const reply = await json<{ scheduleId: string }>('POST', '/schedules', {
    sessionId: session,
    createSession: { workspace, ...createSession },
    calls: [{ id: 'e1', name: 'Edit', input: { file_path: 'notes.txt', old_string: 'a', new_string: 'b' } }],
  })
  expect(reply.status, reply.text).toBe(202)
  const permission = await until(async () => (await json<{ requests: { id: string }[] }>('GET', `/permissions?sessionId=${session}`)).body.requests[0]?.id, 'the Edit to ask')
  return { session, permission, schedule: reply.body.scheduleId }
}

beforeAll(async () => {
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
})

afterAll(async () => {
  await server.close()
})

describe('entries written by the routes', () => {
  it('names the key that answered an approval and the rule its project grant added; the rule removed; the session deleted outlives it', async () => {
    const approver = await mint({ role: 'approver' })
    const { session, permission, schedule } = await pendingEdit()
    const answered = await json('POST', `/permissions/${permission}`, { decision: 'allow', scope: 'project' }, keyBearer(approver))
    expect(answered.status, answered.text).toBe(200)
    await json('GET', `/schedules/${schedule}?wait=10`)

    const [entry] = await audit(`?sessionId=${session}`)
    expect(entry).toMatchObject({
      kind: 'approval.answered',
      actor: { id: approver.key.id, name: approver.key.name },
      sessionId: session,
      detail: { permissionId: permission, callId: 'e1', toolName: 'Edit', decision: 'allow', scope: 'project', grant: { scope: 'project' } },
    })
    const grant = entry?.detail.grant as { rule: string; ruleId: string }
    const rules = (await json<{ rules: { id: string; rule: string }[] }>('GET', '/permissions/rules')).body.rules
    expect(rules).toContainEqual(expect.objectContaining({ id: grant.ruleId, rule: grant.rule }))

    expect((await json('DELETE', `/permissions/rules/${grant.ruleId}`)).status).toBe(204)
    const [removed] = await audit('?kind=rule.removed')
    expect(removed).toMatchObject({ actor: { id: 'admin' }, sessionId: null, detail: { ruleId: grant.ruleId, rule: grant.rule } })

    expect((await json('DELETE', `/sessions/${session}`)).status).toBe(204)
    expect((await json('GET', `/sessions/${session}`)).status).toBe(404)
    expect((await audit(`?sessionId=${session}`)).map((e) => [e.kind, e.actor.id])).toEqual([
      ['approval.answered', approver.key.id],
      ['session.deleted', 'admin'],
    ])
  })

  it('records a key minted and revoked, by whom, and never its secret', async () => {
    const minter = await mint({ scopes: ['keys:write', 'keys:read', 'sessions:read'] })
    const reply = await json<CreatedKey>('POST', '/keys', { name: 'minted by a key', scopes: ['sessions:read'] }, keyBearer(minter))
    expect(reply.status).toBe(201)
    expect((await json('DELETE', `/keys/${reply.body.key.id}`, undefined, keyBearer(minter))).status).toBe(204)
    expect((await json('DELETE', `/keys/${reply.body.key.id}`, undefined, keyBearer(minter))).status).toBe(204)
    const entries = await audit(`?actor=${minter.key.id}`)
    expect(entries.map((e) => [e.kind, e.detail.keyId])).toEqual([
      ['key.minted', reply.body.key.id],
      ['key.revoked', reply.body.key.id],
    ])
    expect(entries[0]?.detail).toMatchObject({ name: 'minted by a key', scopes: ['sessions:read'], role: null })
    expect((await audit('?kind=key.minted')).find((e) => e.detail.keyId === minter.key.id)?.actor).toEqual({ id: 'admin', name: 'administrator (TOOLEXEC_TOKEN)' })
    const everything = (await json('GET', '/audit?limit=1000')).text
    expect(everything).not.toContain(reply.body.secret)
    expect(everything).not.toContain(minter.secret)
  })

  it('records an approval nobody answered in time as decided by the server', async () => {
    const { session } = await pendingEdit({ permissionTimeoutMs: 50 })
    const [entry] = await until(async () => {
      const entries = await audit(`?sessionId=${session}&kind=approval.decided`)
      return entries.length > 0 ? entries : undefined
    }, 'the timeout')
    expect(entry).toMatchObject({ actor: { id: 'server', name: 'timeout' }, detail: { decision: 'deny', toolName: 'Edit' } })
  })
})

describe('GET /audit', () => {
  it('pages oldest first after a seq, and filters by kind, actor, session and time', async () => {
    const keys = [await mint({ role: 'observer' }), await mint({ role: 'observer' }), await mint({ role: 'observer' })]
    const all = await audit('?limit=1000')
    const seqs = all.map((e) => e.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    const first = await json<AuditPage>('GET', '/audit?limit=2')
    expect(first.body.entries.map((e) => e.seq)).toEqual(seqs.slice(0, 2))
    const second = await json<AuditPage>('GET', `/audit?limit=2&after=${String(first.body.next)}`)
    expect(second.body.entries.map((e) => e.seq)).toEqual(seqs.slice(2, 4))
    expect((await json<AuditPage>('GET', `/audit?after=${seqs.at(-1) ?? 0}`)).body).toEqual({ entries: [], next: null })

    const minted = await audit('?kind=key.minted&actor=admin')
    expect(minted.slice(-3).map((e) => e.detail.keyId)).toEqual(keys.map((key) => key.key.id))
    const last = all.at(-1) as AuditEntry
    expect((await audit(`?since=${encodeURIComponent(last.at)}`)).map((e) => e.seq)).toContain(last.seq)
    expect((await audit(`?until=${encodeURIComponent(all[0]?.at ?? '')}`)).length).toBe(0)
    // The same instant with another offset selects the same entries.
    const offset = new Date(Date.parse(last.at)).toISOString().replace('Z', '+00:00')
    expect((await audit(`?since=${encodeURIComponent(offset)}`)).map((e) => e.seq)).toContain(last.seq)
  })

  it('refuses a key without audit:read, and bad filters with 400', async () => {
    const observer = await mint({ role: 'observer' })
    const refused = await json<{ error: { code: string } }>('GET', '/audit', undefined, keyBearer(observer))
    expect([refused.status, refused.body.error.code]).toEqual([403, 'API_ERR_FORBIDDEN'])
    const auditor = await mint({ role: 'auditor' })
    expect((await json('GET', '/audit', undefined, keyBearer(auditor))).status).toBe(200)
    for (const query of ['?kind=nothing', '?limit=0', '?after=-1', '?since=yesterday', '?colour=red']) {
      const reply = await json<{ error: { code: string } }>('GET', `/audit${query}`)
      expect([query, reply.status, reply.body.error.code]).toEqual([query, 400, 'API_ERR_VALIDATION'])
    }
  })

  it('shows a key limited to sessions only the entries of its sessions', async () => {
    const mine = await pendingEdit()
    const other = await pendingEdit()
    await json('POST', `/permissions/${mine.permission}`, { decision: 'deny' })
    await json('POST', `/permissions/${other.permission}`, { decision: 'deny' })
    const limited = await mint({ role: 'auditor', sessions: [mine.session] })
    const page = await json<AuditPage>('GET', '/audit?limit=1000', undefined, keyBearer(limited))
    expect(page.body.entries.map((e) => [e.kind, e.sessionId])).toEqual([['approval.answered', mine.session]])
    expect(page.text).not.toContain(other.session)
  })
})

describe('toolexec audit verify', () => {
  it('is named by --help', () => {
    expect(helpText('0.0.0')).toContain('toolexec audit verify [--head <hash>] [--data-dir <dir> | --database-url <url>]')
  })

  it('exits 0 with the count and head of an intact log, and 1 naming the first entry edited or the kept head gone', async () => {
    const dir = await tempDir('audit-verify')
    const own = await startTestServer({ dataDir: dir, env: { TOOLEXEC_TOKEN: TOKEN } })
    const target = { dataDir: own.dataDir, databaseUrl: own.databaseUrl }
    const env: Record<string, string> = own.databaseUrl === undefined ? {} : { TOOLEXEC_DATABASE_URL: own.databaseUrl }
    const verify = (args: string[] = []) => runRefusedMain(own.dataDir, env, 60_000, { args: ['audit', 'verify', ...args] })
    try {
      const usage = await runRefusedMain(path.join(dir, 'none'), {}, 60_000, { args: ['audit', 'check'] })
      expect([usage.code, usage.stderr]).toEqual([2, `toolexec: ${AUDIT_USAGE}\n`])
      const nowhere = await runRefusedMain(path.join(dir, 'none'), {}, 60_000, { args: ['audit', 'verify'] })
      expect([nowhere.code, nowhere.stderr]).toEqual([2, `toolexec: no database at ${path.join(dir, 'none', 'toolexec.db')}: give the server's --data-dir or TOOLEXEC_DATABASE_URL\n`])
      for (let i = 0; i < 3; i++) expect((await own.json('POST', '/keys', { name: `k${i}`, role: 'observer' }, ADMIN)).status).toBe(201)
      const entries = (await own.json<AuditPage>('GET', '/audit', undefined, ADMIN)).body.entries
      const head = entries.at(-1)?.hash ?? ''

      const intact = await verify()
      expect(intact.stdout).toContain(`audit log intact: 3 entries, head ${head} (entry 3)`)
      expect(intact.code).toBe(0)

      await tamperAuditLog(target, ['DELETE FROM audit_log WHERE seq = 3'])
      const truncated = await verify(['--head', head])
      expect(truncated.stdout).toContain(`the kept head ${head} is not in the log`)
      expect(truncated.code).toBe(1)

      await tamperAuditLog(target, ["UPDATE audit_log SET actor_name = 'someone else' WHERE seq = 2"])
      const edited = await verify()
      expect(edited.stdout).toContain('audit log broken at entry 2: its hash does not match its content')
      expect(edited.code).toBe(1)
    } finally {
      await own.close()
    }
  }, 60_000)
})
