/**
 * Tokens of an identity provider (TOOLEXEC_JWT_ISSUER), against a local one that serves its
 * JWK Set on 127.0.0.1: a token for this audience with its scopes works; one of another
 * audience or issuer, expired, badly signed, unsigned or signed by another key is a 401 with
 * the WWW-Authenticate header of the MCP authorization specification; a scope it lacks is a
 * 403 naming it; its session limits hide other sessions; the protected resource metadata is
 * served; and no token reaches a log or a body.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROLES, SCOPES } from '../../src/contracts/access.js'
import type { ErrorReply } from '../../src/contracts/api.js'
import { codeOf, inject } from '../support/running-session.js'
import { startIdentityProvider, type IdentityProvider } from '../support/identity-provider.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const TOKEN = 'admin-token-9d1e5c3b7a'
const ADMIN = { authorization: `Bearer ${TOKEN}` }
const AUDIENCE = 'https://toolexec.test'
const METADATA_URL = 'https://toolexec.test/.well-known/oauth-protected-resource'

const logLines: string[] = []
const memory = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString('utf8'))
    done()
  },
})

let provider: IdentityProvider
let server: TestServer
/** Every token a test presented: none may appear in a log line or a reply. */
const presented: string[] = []

const bearer = (token: string): Record<string, string> => {
  presented.push(token)
  return { authorization: `Bearer ${token}` }
}

beforeAll(async () => {
  provider = await startIdentityProvider()
  server = await startTestServer({
    env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_JWT_ISSUER: provider.issuer, TOOLEXEC_JWT_AUDIENCE: AUDIENCE, TOOLEXEC_JWT_JWKS_URL: provider.jwksUrl },
    logger: pino({ level: 'trace' }, memory),
  })
  for (const id of ['mine', 'theirs']) expect((await inject(server, { method: 'POST', url: '/sessions', headers: ADMIN, payload: { id } })).statusCode).toBe(201)
})

afterAll(async () => {
  await server?.close()
  await provider?.close()
})

describe('a token of the identity provider', () => {
  it('works on the routes its scope claim holds, as a principal named by its claims', async () => {
    const token = await provider.sign({ sub: 'user-1', name: 'Ada', aud: AUDIENCE, scope: 'sessions:create sessions:read keys:write no:such-scope' })
    const created = await inject(server, { method: 'POST', url: '/sessions', headers: bearer(token), payload: { id: 'by-token' } })
    expect(created.statusCode).toBe(201)
    expect((await inject(server, { method: 'GET', url: '/sessions/by-token', headers: bearer(token) })).statusCode).toBe(200)
    // A key minted with it is named for the token's principal and expires with it.
    const minted = await inject(server, { method: 'POST', url: '/keys', headers: bearer(token), payload: { name: 'from-token', scopes: ['sessions:read'] } })
    expect(minted.statusCode).toBe(201)
    const key = minted.json<{ key: { createdBy: string; expiresAt: string } }>().key
    expect(key.createdBy).toBe(`jwt:${provider.issuer}#user-1`)
    expect(Date.parse(key.expiresAt)).toBeGreaterThan(Date.now())
  })

  it('takes the scopes of the role its toolexec_role claim names, and GET /me tells who it is', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600
    const token = await provider.sign({ sub: 'watcher', preferred_username: 'wendy', aud: AUDIENCE, toolexec_role: 'observer', toolexec_workspaces: ['/srv/agents'], exp })
    expect((await inject(server, { method: 'GET', url: '/sessions', headers: bearer(token) })).statusCode).toBe(200)
    expect((await inject(server, { method: 'POST', url: '/sessions', headers: bearer(token), payload: {} })).statusCode).toBe(403)
    const me = await inject(server, { method: 'GET', url: '/me', headers: bearer(token) })
    expect(me.json()).toEqual({
      id: `jwt:${provider.issuer}#watcher`,
      name: 'wendy',
      kind: 'token',
      role: 'observer',
      scopes: SCOPES.filter((scope) => (ROLES.observer as readonly string[]).includes(scope)),
      limits: { sessions: null, workspaces: ['/srv/agents'] },
      expiresAt: new Date(exp * 1000).toISOString(),
    })
  })

  it('is a 403 with insufficient_scope naming the scope a route needs and the token lacks', async () => {
    const token = await provider.sign({ sub: 'reader', aud: AUDIENCE, scope: 'sessions:read' })
    const reply = await inject(server, { method: 'DELETE', url: '/sessions/mine', headers: bearer(token) })
    expect(reply.statusCode).toBe(403)
    expect(codeOf(reply)).toBe('API_ERR_FORBIDDEN')
    expect(reply.headers['www-authenticate']).toBe(`Bearer realm="toolexec", resource_metadata="${METADATA_URL}", error="insufficient_scope", scope="sessions:delete"`)
  })

  it('limited to one session by toolexec_sessions sees another as one that does not exist', async () => {
    const token = await provider.sign({ sub: 'limited', aud: AUDIENCE, scope: 'sessions:read events:read', toolexec_sessions: ['mine'] })
    expect((await inject(server, { method: 'GET', url: '/sessions/mine', headers: bearer(token) })).statusCode).toBe(200)
    const theirs = await inject(server, { method: 'GET', url: '/sessions/theirs', headers: bearer(token) })
    const none = await inject(server, { method: 'GET', url: '/sessions/no-such-session', headers: ADMIN })
    expect(theirs.statusCode).toBe(404)
    expect(theirs.json()).toEqual(JSON.parse(none.body.replaceAll('no-such-session', 'theirs')))
    const list = await inject(server, { method: 'GET', url: '/sessions', headers: bearer(token) })
    expect(list.body).toContain('"mine"')
    expect(list.body).not.toContain('theirs')
  })

  it('revokes only the links it minted, as a key does', async () => {
    const token = await provider.sign({ sub: 'linker', aud: AUDIENCE, scope: 'links:write sessions:read events:read' })
    const linkOf = async (headers: Record<string, string>): Promise<string> => {
      const minted = await inject(server, { method: 'POST', url: '/sessions/mine/links', headers, payload: { purpose: 'watch' } })
      expect(minted.statusCode).toBe(201)
      return minted.json<{ link: { id: string } }>().link.id
    }
    const administrators = await linkOf(ADMIN)
    expect((await inject(server, { method: 'DELETE', url: `/sessions/mine/links/${administrators}`, headers: bearer(token) })).statusCode).toBe(404)
    const own = await linkOf(bearer(token))
    expect((await inject(server, { method: 'DELETE', url: `/sessions/mine/links/${own}`, headers: bearer(token) })).statusCode).toBe(204)
  })

  it('with a limit claim it cannot read is refused rather than taken as unlimited', async () => {
    const token = await provider.sign({ sub: 'odd', aud: AUDIENCE, scope: 'sessions:read', toolexec_sessions: 'mine' })
    const reply = await inject(server, { method: 'GET', url: '/sessions', headers: bearer(token) })
    expect(reply.statusCode).toBe(401)
    expect(reply.headers['www-authenticate']).toContain('error="invalid_token"')
  })
})

describe('a token that does not verify is a 401 with WWW-Authenticate', () => {
  const now = (): number => Math.floor(Date.now() / 1000)
  const refusals: [string, () => Promise<string>, string][] = [
    ['of another audience', () => provider.sign({ sub: 'u', aud: 'https://elsewhere.test', scope: 'sessions:read' }), 'aud'],
    ['of another issuer', () => provider.sign({ sub: 'u', aud: AUDIENCE, iss: 'https://impostor.test', scope: 'sessions:read' }), 'iss'],
    ['expired', () => provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read', exp: now() - 120 }), 'expired'],
    ['not yet valid', () => provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read', nbf: now() + 600 }), 'nbf'],
    ['without an expiry', () => provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read', exp: undefined }), 'exp'],
    ['with a bad signature', async () => tampered(await provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read' })), 'signature'],
    ['unsigned (alg none)', () => Promise.resolve(new UnsecuredJWT({ sub: 'u', aud: AUDIENCE, iss: provider.issuer, scope: 'sessions:read' }).setExpirationTime('1h').encode()), 'algorithm'],
    ['signed by another key of the same kid', async () => provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read' }, { key: (await generateKeyPair('ES256')).privateKey }), 'signature'],
    ['signed with HMAC', () => hmacToken(provider.issuer), 'algorithm'],
  ]

  for (const [what, token, reason] of refusals) {
    it(`${what}`, async () => {
      const reply = await inject(server, { method: 'GET', url: '/sessions', headers: bearer(await token()) })
      expect(reply.statusCode).toBe(401)
      expect(reply.json<ErrorReply>()).toEqual({ error: { code: 'API_ERR_UNAUTHORIZED', message: 'Missing or invalid bearer token' } })
      const challenge = reply.headers['www-authenticate']
      expect(challenge).toMatch(new RegExp(`^Bearer realm="toolexec", resource_metadata="${METADATA_URL}", error="invalid_token", error_description="[^"]*${reason}[^"]*"$`))
    })
  }

  it('without a token: the challenge names the metadata and no error', async () => {
    const reply = await inject(server, { method: 'GET', url: '/sessions' })
    expect(reply.statusCode).toBe(401)
    expect(reply.headers['www-authenticate']).toBe(`Bearer realm="toolexec", resource_metadata="${METADATA_URL}"`)
  })

  it('an unknown API key is invalid_token too, and the administrator token still works', async () => {
    const reply = await inject(server, { method: 'GET', url: '/sessions', headers: bearer('txk_not-a-key') })
    expect(reply.statusCode).toBe(401)
    expect(reply.headers['www-authenticate']).toContain('error="invalid_token"')
    expect((await inject(server, { method: 'GET', url: '/sessions', headers: ADMIN })).statusCode).toBe(200)
  })
})

describe('an identity provider whose keys cannot be fetched', () => {
  it.each([
    ['that is gone', () => Promise.resolve('http://127.0.0.1:9/jwks.json'), 'could not be reached'],
    ['that serves no JWK Set', () => Promise.resolve(`${provider.issuer}/no-such-jwks`), 'no JWK Set'],
  ])('%s: a 503 to retry, not a 401 that would make the client throw its token away', async (_what, jwksUrl, reason) => {
    const cut = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_JWT_ISSUER: provider.issuer, TOOLEXEC_JWT_AUDIENCE: AUDIENCE, TOOLEXEC_JWT_JWKS_URL: await jwksUrl() } })
    try {
      const token = await provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read' })
      const reply = await inject(cut, { method: 'GET', url: '/sessions', headers: bearer(token) })
      expect(reply.statusCode).toBe(503)
      expect(codeOf(reply)).toBe('API_ERR_IDENTITY_PROVIDER_UNAVAILABLE')
      expect(reply.json<ErrorReply>().error.message).toContain(reason)
      expect(reply.headers['retry-after']).toBe('5')
      expect(reply.body).not.toContain(token)
    } finally {
      await cut.close()
    }
  })
})

describe('the protected resource metadata (RFC 9728)', () => {
  it('is served without a token', async () => {
    const reply = await inject(server, { method: 'GET', url: '/.well-known/oauth-protected-resource' })
    expect(reply.statusCode).toBe(200)
    expect(reply.json()).toEqual({ resource: AUDIENCE, authorization_servers: [provider.issuer], scopes_supported: [...SCOPES], bearer_methods_supported: ['header'] })
  })
})

describe('nothing leaks', () => {
  it('no token presented appears in a log line, the audit log or a session history', async () => {
    expect(presented.length).toBeGreaterThan(10)
    const audit = await inject(server, { method: 'GET', url: '/audit', headers: ADMIN })
    expect(audit.body).toContain(`jwt:${provider.issuer}#user-1`)
    const history = await inject(server, { method: 'GET', url: '/sessions/by-token/history', headers: ADMIN })
    expect(history.statusCode).toBe(200)
    for (const text of [logLines.join(''), audit.body, history.body]) {
      for (const token of presented) expect(text).not.toContain(token.split('.')[2] || token)
    }
  })
})

describe('a server without TOOLEXEC_JWT_ISSUER', () => {
  let plain: TestServer
  beforeAll(async () => {
    plain = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
  })
  afterAll(async () => {
    await plain?.close()
  })

  it('answers 404 for the metadata, and a 401 challenge without it', async () => {
    expect((await inject(plain, { method: 'GET', url: '/.well-known/oauth-protected-resource' })).statusCode).toBe(404)
    const missing = await inject(plain, { method: 'GET', url: '/sessions' })
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="toolexec"')
    const wrong = await inject(plain, { method: 'GET', url: '/sessions', headers: { authorization: 'Bearer wrong-token' } })
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer realm="toolexec", error="invalid_token", error_description="[^"]+"$/)
  })

  it('takes a JWT-shaped bearer as no token at all: a 401, never a check of its claims', async () => {
    const token = await provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read' })
    expect((await inject(plain, { method: 'GET', url: '/sessions', headers: bearer(token) })).statusCode).toBe(401)
  })
})

describe('the key file', () => {
  const dir = tempDirSync('jwt-keys')

  async function serverWithKeyFile(file: string): Promise<TestServer> {
    return startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_JWT_ISSUER: provider.issuer, TOOLEXEC_JWT_AUDIENCE: AUDIENCE, TOOLEXEC_JWT_KEY_FILE: file } })
  }

  it.each([
    ['a PEM public key', 'key.pem', () => exportSPKI(provider.publicKey)],
    ['a JWK Set', 'jwks.json', () => Promise.resolve(JSON.stringify({ keys: [provider.publicJwk] }))],
    ['one JWK', 'jwk.json', () => Promise.resolve(JSON.stringify(provider.publicJwk))],
  ])('holding %s verifies the provider’s tokens and no others', async (_what, name, content) => {
    const file = path.join(dir, name)
    writeFileSync(file, await content())
    const keyed = await serverWithKeyFile(file)
    try {
      const good = await provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read' })
      expect((await inject(keyed, { method: 'GET', url: '/sessions', headers: bearer(good) })).statusCode).toBe(200)
      const forged = await provider.sign({ sub: 'u', aud: AUDIENCE, scope: 'sessions:read' }, { key: (await generateKeyPair('ES256')).privateKey })
      expect((await inject(keyed, { method: 'GET', url: '/sessions', headers: bearer(forged) })).statusCode).toBe(401)
    } finally {
      await keyed.close()
    }
  })

  it.each([
    ['a private key', 'private.pem', async () => exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey), /private key/],
    ['a private JWK', 'private.json', async () => JSON.stringify(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)), /private key/],
    ['a symmetric JWK', 'oct.json', () => Promise.resolve(JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' })), /not an RSA, EC or OKP public key/],
    ['no key at all', 'junk.pem', () => Promise.resolve('not a key'), /no PEM public key/],
  ])('holding %s refuses the start', async (_what, name, content, reason) => {
    const file = path.join(dir, name)
    writeFileSync(file, await content())
    await expect(serverWithKeyFile(file)).rejects.toMatchObject({ name: 'StartupError', code: 'CONF_ERR_JWT_KEY_FILE', message: expect.stringMatching(reason) as unknown })
  })
})

/** The signature of another token of the same header: the payload no longer matches it. */
function tampered(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
  const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'keys:write' })).toString('base64url')
  return `${header}.${widened}.${signature}`
}

/** A token signed with HMAC, as someone who took the provider's public key for a shared secret would sign it. */
function hmacToken(issuer: string): Promise<string> {
  return new SignJWT({ sub: 'u', aud: AUDIENCE, iss: issuer, scope: 'sessions:read' })
    .setProtectedHeader({ alg: 'HS256', kid: 'test-key-1' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('a shared secret that nobody should have used'))
}
