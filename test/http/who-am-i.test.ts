/**
 * GET /me: every credential may ask who it is (its id, name, kind, role, scopes, limits and
 * expiry, never a secret), whatever scopes it holds; without a token the answer is the local
 * principal, and a revoked key is a 401 like any other route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedKey } from '../../src/contracts/api-keys.js'
import type { CreatedLink } from '../../src/contracts/links.js'
import { bearer, keyedJson } from '../support/keyed-requests.js'
import { startTestServer, type TestServer } from '../support/server.js'

const TOKEN = 'admin-token-3e7a9c51f2'
const ADMIN = bearer(TOKEN)

let server: TestServer
const json = keyedJson(() => server, ADMIN)

async function mint(body: Record<string, unknown>): Promise<CreatedKey> {
  const reply = await json<CreatedKey>('POST', '/keys', body)
  expect(reply.status, reply.text).toBe(201)
  return reply.body
}

beforeAll(async () => {
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
})

afterAll(async () => {
  await server.close()
})

describe('GET /me', () => {
  it('tells the administrator it is the administrator, with every scope', async () => {
    const reply = await json('GET', '/me')
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ id: 'admin', kind: 'admin', role: null, limits: { sessions: null, workspaces: null }, expiresAt: null })
    expect((reply.body as { scopes: string[] }).scopes).toContain('keys:write')
    expect(reply.text).not.toContain(TOKEN)
  })

  it('tells a key its name, role, scopes, limits and expiry, never its secret', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString()
    const created = await mint({ name: 'Olga (observer)', role: 'observer', sessions: ['s-1'], expiresAt })
    const reply = await json('GET', '/me', undefined, bearer(created.secret))
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      id: created.key.id,
      name: 'Olga (observer)',
      kind: 'key',
      role: 'observer',
      scopes: ['sessions:read', 'events:read', 'tools:read'],
      limits: { sessions: ['s-1'], workspaces: null },
      expiresAt,
    })
    expect(reply.text).not.toContain(created.secret)
  })

  it('answers a key given scopes and no role with role null, though it holds no scope of its own for the route', async () => {
    const created = await mint({ name: 'audit reader', scopes: ['audit:read'] })
    const reply = await json('GET', '/me', undefined, bearer(created.secret))
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ id: created.key.id, name: 'audit reader', kind: 'key', role: null, scopes: ['audit:read'] })
  })

  it('tells a short-lived link its session and scopes', async () => {
    await json('POST', '/sessions', { id: 'me-linked' })
    const link = await json<CreatedLink>('POST', '/sessions/me-linked/links', { purpose: 'decide' })
    expect(link.status, link.text).toBe(201)
    const reply = await json('GET', '/me', undefined, bearer(link.body.secret))
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ id: link.body.link.id, scopes: ['sessions:read', 'events:read', 'approvals:decide'], limits: { sessions: ['me-linked'] } })
    expect(reply.text).not.toContain(link.body.secret)
  })

  it('is a 401 without a token, with a wrong one and with a revoked key', async () => {
    const created = await mint({ name: 'soon revoked', role: 'approver' })
    expect((await json('DELETE', `/keys/${created.key.id}`)).status).toBe(204)
    for (const headers of [{}, bearer(`${TOKEN}-wrong`), bearer(created.secret)]) {
      const reply = await json('GET', '/me', undefined, headers)
      expect([reply.status, reply.body.error?.code]).toEqual([401, 'API_ERR_UNAUTHORIZED'])
    }
  })

  it('answers the local principal when the server runs without a token', async () => {
    const local = await startTestServer()
    try {
      const reply = await keyedJson(() => local, {})('GET', '/me')
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ id: 'local', kind: 'local', role: null, limits: { sessions: null, workspaces: null }, expiresAt: null })
    } finally {
      await local.close()
    }
  })
})
