/**
 * API keys: minted with no more than the minting key has, shown once and kept only as a hash,
 * revoked and expired at once, limited to sessions or workspaces; a route missing from the
 * scope table keeps the server from starting.
 */
import { createHash } from 'node:crypto'
import { mkdir, symlink } from 'node:fs/promises'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ApiKey, CreatedKey } from '../../src/contracts/api-keys.js'
import { assertEveryRouteListed } from '../../src/http/route-scopes.js'
import { bearer, keyedJson } from '../support/keyed-requests.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDir } from '../support/temp-dirs.js'

const TOKEN = 'admin-token-8d3b1f6a2c'
const ADMIN = { authorization: `Bearer ${TOKEN}` }

const logLines: string[] = []
const memory = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString('utf8'))
    done()
  },
})

let server: TestServer
let counter = 0
const fresh = (prefix: string): string => `${prefix}-${++counter}`

const json = keyedJson(() => server, ADMIN)

async function mint(body: Record<string, unknown>, by: Record<string, string> = ADMIN): Promise<CreatedKey> {
  const reply = await json<CreatedKey>('POST', '/keys', { name: fresh('key'), ...body }, by)
  expect(reply.status, reply.text).toBe(201)
  return reply.body
}

beforeAll(async () => {
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN }, logger: pino({ level: 'trace' }, memory) })
})

afterAll(async () => {
  await server.close()
})

afterEach(() => {
  vi.useRealTimers()
})

describe('POST /keys', () => {
  it('shows the secret once, txk_ and 32 random bytes; lists and the database keep only its SHA-256; no log line carries it', async () => {
    const created = await mint({ name: 'ci agent', role: 'agent' })
    expect(created.secret).toMatch(/^txk_[A-Za-z0-9_-]{43}$/)
    expect(created.key).toMatchObject({ name: 'ci agent', role: 'agent', sessions: null, workspaces: null, expiresAt: null, createdBy: 'admin', revokedAt: null })
    expect(created.key.scopes).toEqual(['sessions:create', 'sessions:read', 'events:read', 'tools:read', 'schedules:write', 'sessions:abort'])
    const listed = await json<{ keys: ApiKey[] }>('GET', '/keys')
    expect(listed.body.keys).toContainEqual(created.key)
    expect(listed.text).not.toContain(created.secret)
    const stored = await server.runtime.store.keys.get(created.key.id)
    expect(stored?.secretHash).toBe(createHash('sha256').update(created.secret).digest('hex'))
    expect(JSON.stringify(await server.runtime.store.keys.list())).not.toContain(created.secret.slice(4))
    expect((await json('GET', '/sessions', undefined, bearer(created.secret))).status).toBe(200)
    expect((await json('GET', `/sessions?access_token=${created.secret}`, undefined, {})).status).toBe(401)
    expect(logLines.join('')).not.toContain(created.secret.slice(4))
  })

  it('a wrong key is a 401 that does not repeat it; a key lacking the scope is a 403 naming the scope', async () => {
    const wrong = `txk_${'A'.repeat(43)}`
    const refused = await json('GET', '/sessions', undefined, bearer(wrong))
    expect([refused.status, refused.body.error?.code]).toEqual([401, 'API_ERR_UNAUTHORIZED'])
    expect(refused.text).not.toContain(wrong.slice(4))
    const observer = await mint({ role: 'observer' })
    const forbidden = await json('DELETE', '/sessions/anything', undefined, bearer(observer.secret))
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.error?.code).toBe('API_ERR_FORBIDDEN')
    expect(forbidden.body.error?.message).toContain('sessions:delete')
    expect(forbidden.text).not.toContain(observer.secret.slice(4))
  })

  it('refuses a key with a scope, a session, a workspace or a time the minting key lacks (403 API_ERR_KEY_TOO_WIDE); a side not named is inherited', async () => {
    const root = await tempDir('keys-minting')
    const later = new Date(Date.now() + 3_600_000).toISOString()
    const minter = await mint({ scopes: ['keys:write', 'keys:read', 'sessions:read'], sessions: ['s-a', 's-b'], workspaces: [root], expiresAt: later })
    const by = bearer(minter.secret)
    const cases: [string, Record<string, unknown>][] = [
      ['a scope', { role: 'observer' }],
      ['a scope', { scopes: ['sessions:read', 'sessions:delete'] }],
      ['a session', { scopes: ['sessions:read'], sessions: ['s-a', 's-c'] }],
      ['a workspace', { scopes: ['sessions:read'], workspaces: [path.dirname(root)] }],
      ['a workspace', { scopes: ['sessions:read'], workspaces: [`${root}-sibling`] }],
      ['a time', { scopes: ['sessions:read'], expiresAt: new Date(Date.now() + 7_200_000).toISOString() }],
    ]
    for (const [what, body] of cases) {
      const reply = await json('POST', '/keys', { name: fresh('wide'), ...body }, by)
      expect([reply.status, reply.body.error?.code], `${what}: ${reply.text}`).toEqual([403, 'API_ERR_KEY_TOO_WIDE'])
    }
    const narrower = await mint({ scopes: ['sessions:read'], sessions: ['s-b'], workspaces: [path.join(root, 'sub')] }, by)
    expect(narrower.key).toMatchObject({ sessions: ['s-b'], workspaces: [path.join(root, 'sub')], expiresAt: later, createdBy: minter.key.id })
    const inherited = await mint({ scopes: ['sessions:read'] }, by)
    expect(inherited.key).toMatchObject({ sessions: ['s-a', 's-b'], workspaces: [root], expiresAt: later })
    // A key manages only what it could have minted: itself among them.
    const listed = await json<{ keys: ApiKey[] }>('GET', '/keys', undefined, by)
    expect(listed.body.keys.map((key) => key.id).sort()).toEqual([minter.key.id, narrower.key.id, inherited.key.id].sort())
    const other = await mint({ role: 'observer' })
    const hidden = await json('DELETE', `/keys/${other.key.id}`, undefined, by)
    expect([hidden.status, hidden.body.error?.code]).toEqual([404, 'API_ERR_KEY_NOT_FOUND'])
  })

  it('asks for exactly one of role and scopes, and an expiry in the future (400)', async () => {
    for (const body of [{}, { role: 'agent', scopes: ['sessions:read'] }, { role: 'agent', expiresAt: '2001-01-01T00:00:00Z' }]) {
      const reply = await json('POST', '/keys', { name: 'bad', ...body })
      expect([reply.status, reply.body.error?.code], reply.text).toEqual([400, 'API_ERR_VALIDATION'])
    }
  })
})

describe('revocation and expiry', () => {
  it('a revoked key is refused at the next request, and stays listed with the time it was revoked', async () => {
    const key = await mint({ role: 'observer' })
    expect((await json('GET', '/sessions', undefined, bearer(key.secret))).status).toBe(200)
    expect((await json('DELETE', `/keys/${key.key.id}`)).status).toBe(204)
    expect((await json('GET', '/sessions', undefined, bearer(key.secret))).status).toBe(401)
    const listed = await json<{ keys: ApiKey[] }>('GET', '/keys')
    expect(listed.body.keys.find((listedKey) => listedKey.id === key.key.id)?.revokedAt).toEqual(expect.any(String))
    expect((await json('DELETE', '/keys/key_none')).status).toBe(404)
  })

  it('revoking a key revokes every key and link it minted, and theirs in turn, each entered in the audit log', async () => {
    const lead = await mint({ role: 'owner' })
    const agent = await mint({ scopes: ['sessions:read', 'events:read', 'tools:read', 'keys:write'] }, bearer(lead.secret))
    const observer = await mint({ role: 'observer' }, bearer(agent.secret))
    const sessionId = fresh('cascade')
    expect((await json('POST', '/sessions', { id: sessionId })).status).toBe(201)
    const link = await json<{ secret: string; link: { id: string } }>('POST', `/sessions/${sessionId}/links`, { purpose: 'watch' }, bearer(lead.secret))
    expect(link.status).toBe(201)
    const bystander = await mint({ role: 'observer' })
    const reads = async (secret: string): Promise<number> => (await json('GET', `/sessions/${sessionId}`, undefined, bearer(secret))).status
    for (const secret of [agent.secret, observer.secret, link.body.secret, bystander.secret]) expect(await reads(secret)).toBe(200)

    expect((await json('DELETE', `/keys/${lead.key.id}`)).status).toBe(204)
    for (const secret of [lead.secret, agent.secret, observer.secret, link.body.secret]) expect(await reads(secret)).toBe(401)
    expect(await reads(bystander.secret)).toBe(200)
    const listed = (await json<{ keys: ApiKey[] }>('GET', '/keys')).body.keys
    const revoked = (id: string): string | null | undefined => listed.find((key) => key.id === id)?.revokedAt
    expect([lead.key.id, agent.key.id, observer.key.id].map(revoked)).toEqual([expect.any(String), expect.any(String), expect.any(String)])
    expect(revoked(bystander.key.id)).toBeNull()
    const audit = (await json<{ entries: { kind: string; detail: { keyId?: string; mintedBy?: string } }[] }>('GET', '/audit?kind=key.revoked')).body.entries
    const cascaded = audit.filter((entry) => [agent.key.id, observer.key.id, link.body.link.id].includes(entry.detail.keyId ?? ''))
    expect(cascaded.map((entry) => entry.detail.mintedBy).sort()).toEqual([agent.key.id, lead.key.id, lead.key.id].sort())
  })

  it('a key whose minter is revoked is refused even before it is marked revoked itself', async () => {
    const lead = await mint({ role: 'owner' })
    const agent = await mint({ role: 'agent' }, bearer(lead.secret))
    // As if the minter's revocation committed between the check of a request minting with it and its insert.
    await server.runtime.store.commit((unit) => unit.keys.revoke(lead.key.id, new Date().toISOString()))
    expect((await json('GET', '/tools', undefined, bearer(agent.secret))).status).toBe(401)
    expect((await json<{ keys: ApiKey[] }>('GET', '/keys')).body.keys.find((key) => key.id === agent.key.id)?.revokedAt).toBeNull()
  })

  it('an expired key is refused from the moment it expires', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString()
    const key = await mint({ role: 'observer', expiresAt })
    expect((await json('GET', '/sessions', undefined, bearer(key.secret))).status).toBe(200)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.parse(expiresAt) - 1)
    expect((await json('GET', '/sessions', undefined, bearer(key.secret))).status).toBe(200)
    vi.setSystemTime(Date.parse(expiresAt))
    expect((await json('GET', '/sessions', undefined, bearer(key.secret))).status).toBe(401)
  })
})

describe('a key limited to workspaces', () => {
  it('creates and sees sessions under its paths only; a symlink out of them is out', async () => {
    const root = await tempDir('keys-workspaces')
    const inside = path.join(root, 'team')
    await mkdir(inside)
    const outside = await tempDir('keys-elsewhere')
    await symlink(outside, path.join(inside, 'escape'))
    const agent = bearer((await mint({ role: 'agent', workspaces: [inside] })).secret)
    const mine = fresh('ws-mine')
    expect((await json('POST', '/sessions', { id: mine, workspace: path.join(inside, 'a') }, agent)).status).toBe(201)
    const elsewhere = await json('POST', '/sessions', { id: fresh('ws-out'), workspace: outside }, agent)
    expect([elsewhere.status, elsewhere.body.error?.code]).toEqual([403, 'API_ERR_FORBIDDEN'])
    const escaped = await json('POST', '/sessions', { id: fresh('ws-escape'), workspace: path.join(inside, 'escape') }, agent)
    expect(escaped.status).toBe(403)
    const viaSchedule = await json('POST', '/schedules', { sessionId: fresh('ws-sched'), createSession: { workspace: outside }, calls: [] }, agent)
    expect(viaSchedule.status).toBe(403)
    const theirs = fresh('ws-theirs')
    expect((await json('POST', '/sessions', { id: theirs, workspace: outside })).status).toBe(201)
    const listed = await json<{ sessions: { id: string }[] }>('GET', '/sessions?limit=1', undefined, agent)
    expect(listed.body.sessions.map((session) => session.id)).toEqual([mine])
    expect(listed.text).not.toContain(theirs)
    const unseen = await json('GET', `/sessions/${theirs}`, undefined, agent)
    const absent = await json('GET', '/sessions/ghost', undefined, ADMIN)
    expect([unseen.status, unseen.text]).toEqual([404, absent.text.replace('ghost', theirs)])
  })
})

describe('a key limited to sessions', () => {
  it('pages through its own sessions only, each page full, and takes no other as a cursor', async () => {
    const ids = ['a1', 'x1', 'x2', 'a2', 'x3', 'a3'].map((id) => fresh(`page-${id}`))
    for (const id of ids) expect((await json('POST', '/sessions', { id })).status).toBe(201)
    const [a1, , , a2, x3, a3] = ids as [string, string, string, string, string, string]
    const observer = bearer((await mint({ role: 'observer', sessions: [a1, a2, a3] })).secret)
    const first = await json<{ sessions: { id: string }[]; next?: string }>('GET', '/sessions?limit=2', undefined, observer)
    expect([first.body.sessions.map((session) => session.id), first.body.next]).toEqual([[a3, a2], a2])
    const second = await json<{ sessions: { id: string }[]; next?: string }>('GET', `/sessions?limit=2&before=${a2}`, undefined, observer)
    expect([second.body.sessions.map((session) => session.id), second.body.next]).toEqual([[a1], undefined])
    const cursor = await json('GET', `/sessions?before=${x3}`, undefined, observer)
    expect([cursor.status, cursor.body.error?.code]).toEqual([404, 'API_ERR_SESSION_NOT_FOUND'])
  })
})

describe('the scope table', () => {
  it('refuses a route it does not list, naming it', () => {
    expect(() => assertEveryRouteListed([{ method: 'GET', url: '/sessions' }])).not.toThrow()
    expect(() =>
      assertEveryRouteListed([
        { method: 'HEAD', url: '/sessions/:id' },
        { method: 'GET', url: '/docs/static/*' },
      ]),
    ).not.toThrow()
    expect(() => assertEveryRouteListed([{ method: 'POST', url: '/sessions/:id/secret' }])).toThrow('POST /sessions/:id/secret')
  })
})
