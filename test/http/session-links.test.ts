/**
 * Short-lived links: a token for one session and one purpose that expires (15 min by default),
 * can be revoked, reaches nothing else, and is never wider than the key that minted it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { CreatedKey } from '../../src/contracts/api-keys.js'
import type { PermissionRequestRecord, ScheduleAcceptedReply, SessionList } from '../../src/contracts/api.js'
import type { CreatedLink } from '../../src/contracts/links.js'
import { bearer, keyedJson } from '../support/keyed-requests.js'
import { startTestServer, type TestServer } from '../support/server.js'

const TOKEN = 'admin-token-links-93ab'
const ADMIN: Record<string, string> = { authorization: `Bearer ${TOKEN}` }
let server: TestServer
let counter = 0
const fresh = (prefix: string): string => `${prefix}-${++counter}`

const json = keyedJson(() => server, ADMIN)

async function session(): Promise<string> {
  const id = fresh('linked')
  expect((await json('POST', '/sessions', { id, permissionMode: 'default' })).status).toBe(201)
  return id
}

async function link(sessionId: string, body: Record<string, unknown>, headers = ADMIN): Promise<CreatedLink> {
  const reply = await json<CreatedLink>('POST', `/sessions/${sessionId}/links`, body, headers)
  expect(reply.status).toBe(201)
  return reply.body
}

async function mint(body: Record<string, unknown>): Promise<CreatedKey> {
  const reply = await json<CreatedKey>('POST', '/keys', { name: fresh('key'), ...body })
  expect(reply.status).toBe(201)
  return reply.body
}

async function pendingEdit(sessionId: string, headers = ADMIN): Promise<PermissionRequestRecord> {
  const accepted = await json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, calls: [{ id: fresh('e'), name: 'Edit', input: { file_path: 'notes.txt' } }] }, headers)
  expect(accepted.status).toBe(202)
  const deadline = Date.now() + 5_000
  for (;;) {
    const [request] = (await json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}`)).body.requests
    if (request !== undefined) return request
    if (Date.now() > deadline) throw new Error(`no pending request in ${sessionId}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

beforeAll(async () => {
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
})

afterEach(() => {
  vi.useRealTimers()
})

afterAll(async () => {
  await server.close()
})

describe('POST /sessions/:id/links', () => {
  it('a watch link reads and streams its session only, and decides nothing', async () => {
    const sessionId = await session()
    const other = await session()
    const created = await link(sessionId, { purpose: 'watch' })
    expect(created.link).toMatchObject({ sessionId, purpose: 'watch', createdBy: 'admin' })
    expect(created.secret).toMatch(/^txk_/)
    expect(created.consolePath).toBe(`/#/sessions/${sessionId}?token=${encodeURIComponent(created.secret)}`)
    const watch = bearer(created.secret)
    expect((await json('GET', `/sessions/${sessionId}`, undefined, watch)).status).toBe(200)
    expect((await json('GET', `/sessions/${sessionId}/history`, undefined, watch)).status).toBe(200)
    expect((await json<SessionList>('GET', '/sessions', undefined, watch)).body.sessions.map((listed) => listed.id)).toEqual([sessionId])
    expect((await json('GET', `/sessions/${other}`, undefined, watch)).status).toBe(404)
    const request = await pendingEdit(sessionId)
    const refused = await json('POST', `/permissions/${request.id}`, { decision: 'allow' }, watch)
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'API_ERR_FORBIDDEN'])
    expect((await json('POST', '/sessions', { id: fresh('by-link') }, watch)).status).toBe(403)
    expect((await json('POST', `/sessions/${sessionId}/abort`, {}, watch)).status).toBe(403)
    expect((await json('POST', `/sessions/${sessionId}/links`, { purpose: 'watch' }, watch)).status).toBe(403)
    await json('POST', `/sessions/${sessionId}/abort`, {})
  })

  it('a decide link decides the approvals of its session, as itself, and of no other', async () => {
    const sessionId = await session()
    const other = await session()
    const created = await link(sessionId, { purpose: 'decide' })
    const decide = bearer(created.secret)
    const elsewhere = await pendingEdit(other)
    expect((await json('POST', `/permissions/${elsewhere.id}`, { decision: 'allow' }, decide)).status).toBe(404)
    const request = await pendingEdit(sessionId)
    const reply = await json<PermissionRequestRecord>('POST', `/permissions/${request.id}`, { decision: 'allow', inputHash: request.inputHash }, decide)
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ status: 'allow', deciderId: created.link.id, deciderName: `decide link to session ${sessionId}` })
    await json('POST', `/permissions/${elsewhere.id}`, { decision: 'deny' })
  })

  it('expires after 15 minutes by default (a fake clock), and after its own expiresInSeconds (the real one)', async () => {
    const sessionId = await session()
    const created = await link(sessionId, { purpose: 'watch' })
    const minted = Date.parse(created.link.createdAt)
    expect(Date.parse(created.link.expiresAt) - minted).toBe(15 * 60 * 1000)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(minted + 15 * 60 * 1000 - 1000)
    expect((await json('GET', `/sessions/${sessionId}`, undefined, bearer(created.secret))).status).toBe(200)
    vi.setSystemTime(minted + 15 * 60 * 1000 + 1)
    expect((await json('GET', `/sessions/${sessionId}`, undefined, bearer(created.secret))).status).toBe(401)
    vi.useRealTimers()

    const short = await link(sessionId, { purpose: 'watch', expiresInSeconds: 1 })
    expect((await json('GET', `/sessions/${sessionId}`, undefined, bearer(short.secret))).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, Date.parse(short.link.expiresAt) - Date.now() + 50))
    expect((await json('GET', `/sessions/${sessionId}`, undefined, bearer(short.secret))).status).toBe(401)
  })

  it('is refused past 24 hours, and never outlives nor outranks the key minting it', async () => {
    const sessionId = await session()
    expect((await json('POST', `/sessions/${sessionId}/links`, { purpose: 'watch', expiresInSeconds: 86_401 })).status).toBe(400)
    expect((await json('POST', `/sessions/${sessionId}/links`, { purpose: 'forever' })).status).toBe(400)
    const watcher = await mint({ scopes: ['sessions:read', 'events:read', 'links:write'] })
    const tooWide = await json('POST', `/sessions/${sessionId}/links`, { purpose: 'decide' }, bearer(watcher.secret))
    expect([tooWide.status, tooWide.body.error?.code]).toEqual([403, 'API_ERR_KEY_TOO_WIDE'])
    const soon = new Date(Date.now() + 60_000).toISOString()
    const brief = await mint({ role: 'approver', expiresAt: soon })
    const capped = await link(sessionId, { purpose: 'decide' }, bearer(brief.secret))
    expect(capped.link.expiresAt).toBe(soon)
    const observer = await mint({ role: 'observer' })
    expect((await json('POST', `/sessions/${sessionId}/links`, { purpose: 'watch' }, bearer(observer.secret))).status).toBe(403)
    const elsewhere = await mint({ role: 'approver', sessions: [await session()] })
    expect((await json('POST', `/sessions/${sessionId}/links`, { purpose: 'watch' }, bearer(elsewhere.secret))).status).toBe(404)
    expect((await json('POST', '/sessions/no-such-session/links', { purpose: 'watch' })).status).toBe(404)
  })

  it('under four eyes, a link decides as the key that minted it', async () => {
    const agent = await mint({ scopes: ['sessions:read', 'events:read', 'schedules:write', 'approvals:decide', 'links:write'] })
    const sessionId = fresh('four-eyes')
    expect((await json('POST', '/sessions', { id: sessionId, permissionMode: 'default', fourEyes: true })).status).toBe(201)
    const request = await pendingEdit(sessionId, bearer(agent.secret))
    const own = await link(sessionId, { purpose: 'decide' }, bearer(agent.secret))
    const refused = await json('POST', `/permissions/${request.id}`, { decision: 'allow' }, bearer(own.secret))
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'API_ERR_FOUR_EYES'])
    const reviewer = await link(sessionId, { purpose: 'decide' })
    expect((await json('POST', `/permissions/${request.id}`, { decision: 'allow' }, bearer(reviewer.secret))).status).toBe(200)
  })
})

describe('DELETE /sessions/:id/links/:linkId', () => {
  it('revokes at once; a link of another session, revoked already, or minted by another key is a 404', async () => {
    const sessionId = await session()
    const other = await session()
    const created = await link(sessionId, { purpose: 'watch' })
    expect((await json('GET', `/sessions/${sessionId}`, undefined, bearer(created.secret))).status).toBe(200)
    expect((await json('DELETE', `/sessions/${other}/links/${created.link.id}`)).status).toBe(404)
    const approver = await mint({ role: 'approver' })
    expect((await json('DELETE', `/sessions/${sessionId}/links/${created.link.id}`, undefined, bearer(approver.secret))).status).toBe(404)
    expect((await json('DELETE', `/sessions/${sessionId}/links/${created.link.id}`)).status).toBe(204)
    expect((await json('GET', `/sessions/${sessionId}`, undefined, bearer(created.secret))).status).toBe(401)
    const own = await link(sessionId, { purpose: 'watch' }, bearer(approver.secret))
    expect((await json('DELETE', `/sessions/${sessionId}/links/${own.link.id}`, undefined, bearer(approver.secret))).status).toBe(204)
    expect((await json('DELETE', `/sessions/${sessionId}/links/${approver.key.id}`)).status).toBe(404)
  })

  it('deleting the session revokes its links: a new session of the same id is not theirs', async () => {
    const sessionId = await session()
    const watch = await link(sessionId, { purpose: 'watch' })
    const other = await session()
    const elsewhere = await link(other, { purpose: 'watch' })
    expect((await json('DELETE', `/sessions/${sessionId}`)).status).toBe(204)
    expect((await json('POST', '/sessions', { id: sessionId })).status).toBe(201)
    expect((await json('GET', `/sessions/${sessionId}`, undefined, bearer(watch.secret))).status).toBe(401)
    expect((await json('GET', `/sessions/${other}`, undefined, bearer(elsewhere.secret))).status).toBe(200)
  })

  it('enters a link minted and one revoked in the audit log, with its session', async () => {
    const sessionId = await session()
    const created = await link(sessionId, { purpose: 'decide' })
    expect((await json('DELETE', `/sessions/${sessionId}/links/${created.link.id}`)).status).toBe(204)
    const entries = (await json<{ entries: { kind: string; sessionId: string | null; detail: { keyId?: string } }[] }>('GET', `/audit?sessionId=${sessionId}`)).body.entries
    expect(entries.filter((entry) => entry.detail.keyId === created.link.id).map((entry) => [entry.kind, entry.sessionId])).toEqual([
      ['key.minted', sessionId],
      ['key.revoked', sessionId],
    ])
    expect(JSON.stringify(entries)).not.toContain(created.secret)
  })
})
