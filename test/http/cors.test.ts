/**
 * CORS for the origins in TOOLEXEC_CORS_ORIGINS: the preflight allows every method the API
 * uses and is cached; every reply to a listed origin, errors included, carries the allow and
 * expose headers, so a page reads a 401's status and body instead of `Failed to fetch`.
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_METHODS } from '../../src/http/cors.js'
import { RECONNECT_DELAY_MS } from '../../src/http/session-stream.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { openSse } from '../support/sse-client.js'
import { anyOf } from '../support/matchers.js'

const TOKEN = 'cors-token-5Vq8rT2m'
const ALLOWED = 'http://page.example:8080'
const OTHER = 'http://elsewhere.example'
const BEARER = { authorization: `Bearer ${TOKEN}` }
const CORS_ENV = { TOOLEXEC_CORS_ORIGINS: `${ALLOWED},http://second.example` }

let guarded: TestServer
let loopbackOnly: TestServer
let noSpace: TestServer

beforeAll(async () => {
  ;[guarded, loopbackOnly, noSpace] = await Promise.all([
    startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, ...CORS_ENV } }),
    startTestServer({ env: CORS_ENV }),
    startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, ...CORS_ENV }, storageSpace: { freeBytes: () => 0 } }),
  ])
  expect((await guarded.json('POST', '/sessions', { id: 'cors-taken' }, BEARER)).status).toBe(201)
})

afterAll(async () => {
  await Promise.all([guarded?.close(), loopbackOnly?.close(), noSpace?.close()])
})

interface Sent {
  readonly status: number
  readonly headers: Headers
  readonly body: unknown
}

async function send(server: TestServer, method: string, route: string, init: { origin?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Sent> {
  const headers: Record<string, string> = { origin: init.origin ?? ALLOWED, ...init.headers }
  const response = await fetch(`${server.url}${route}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined }
}

const jsonBody = (value: unknown): { headers: Record<string, string>; body: string } => ({
  headers: { ...BEARER, 'content-type': 'application/json' },
  body: JSON.stringify(value),
})

function expectReadableByThePage(reply: { headers: Headers }): void {
  expect(reply.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  expect(reply.headers.get('vary')?.toLowerCase()).toContain('origin')
  const exposed = (reply.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/)
  expect(exposed).toEqual(expect.arrayContaining(['content-range', 'content-disposition', 'accept-ranges', 'retry-after']))
}

describe('the preflight', () => {
  it.each([
    ['DELETE', '/sessions/cors-taken'],
    ['POST', '/schedules'],
    ['GET', '/sessions/cors-taken/events'],
  ])('allows %s %s with the token and JSON headers, without a token, and may be cached', async (method, route) => {
    const reply = await send(guarded, 'OPTIONS', route, {
      headers: { 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,last-event-id' },
    })
    expect(reply.status).toBe(204)
    expect(reply.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    const methods = (reply.headers.get('access-control-allow-methods') ?? '').split(/\s*,\s*/)
    expect(methods).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST', 'DELETE']))
    expect((reply.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/)).toEqual(expect.arrayContaining(['authorization', 'content-type', 'last-event-id']))
    expect(reply.headers.get('access-control-max-age')).toBe(String(CORS_MAX_AGE_SECONDS))
  })

  it('allows every method a route of the API answers', async () => {
    const document = (await send(guarded, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> }
    const used = new Set(Object.values(document.paths).flatMap((item) => Object.keys(item).map((method) => method.toUpperCase())))
    expect(used.size).toBeGreaterThan(1)
    for (const method of used) expect(CORS_METHODS).toContain(method)
  })

  it('gives another origin no allow header', async () => {
    const reply = await send(guarded, 'OPTIONS', '/sessions/cors-taken', { origin: OTHER, headers: { 'access-control-request-method': 'DELETE' } })
    expect(reply.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('every reply to a listed origin carries the CORS headers', () => {
  it('200, and a DELETE that answers 204', async () => {
    const listed = await send(guarded, 'GET', '/sessions', { headers: BEARER })
    expect(listed.status).toBe(200)
    expectReadableByThePage(listed)
    expect((await guarded.json('POST', '/sessions', { id: 'cors-deleted' }, BEARER)).status).toBe(201)
    const deleted = await send(guarded, 'DELETE', '/sessions/cors-deleted', { headers: BEARER })
    expect(deleted.status).toBe(204)
    expectReadableByThePage(deleted)
  })

  it('400 for a body that breaks its schema', async () => {
    const reply = await send(guarded, 'POST', '/sessions', jsonBody({ id: 5 }))
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ error: { code: 'API_ERR_VALIDATION' } })
    expectReadableByThePage(reply)
  })

  it('400 and 414 that fastify answers before any hook: a malformed URL, an over-long path parameter', async () => {
    const malformed = await send(guarded, 'GET', '/sessions/%E0%A4%A', { headers: BEARER })
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: anyOf(String), message: anyOf(String) } } })
    expectReadableByThePage(malformed)
    const overLong = await send(guarded, 'GET', `/sessions/${'a'.repeat(1_200)}`, { headers: BEARER })
    expect(overLong.status).toBe(414)
    expectReadableByThePage(overLong)
    const elsewhere = await send(guarded, 'GET', '/sessions/%E0%A4%A', { origin: OTHER, headers: BEARER })
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('401 for a missing or wrong token, on the API and on the event stream', async () => {
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }] as Record<string, string>[]) {
      const reply = await send(guarded, 'GET', '/sessions', { headers })
      expect(reply).toMatchObject({ status: 401, body: { error: { code: 'API_ERR_UNAUTHORIZED' } } })
      expectReadableByThePage(reply)
      // Why it was refused, which a page (a browser-based MCP client) reads to find where to get a token.
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm="toolexec"/)
      expect(reply.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('www-authenticate')
    }
    // An OPTIONS request that is not a preflight is authenticated like any other.
    const options = await send(guarded, 'OPTIONS', '/sessions')
    expect(options).toMatchObject({ status: 401, body: { error: { code: 'API_ERR_UNAUTHORIZED' } } })
    expectReadableByThePage(options)
    const stream = await openSse(guarded.url, 'cors-taken', { accessToken: 'wrong', headers: { origin: ALLOWED } })
    expect(stream.status).toBe(401)
    expectReadableByThePage(stream)
  })

  it('403 for a Host that is not a loopback name (no token set)', async () => {
    const target = new URL(loopbackOnly.url)
    const reply = await new Promise<{ status: number; headers: Headers }>((resolve, reject) => {
      const request = http.request({ host: target.hostname, port: target.port, path: '/sessions', headers: { host: 'rebound.example', origin: ALLOWED } }, (response) => {
        response.resume()
        const headers = new Headers()
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value)
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers }))
      })
      request.on('error', reject)
      request.end()
    })
    expect(reply.status).toBe(403)
    expectReadableByThePage(reply)
  })

  it('404 for an unknown session and an unknown route', async () => {
    for (const route of ['/sessions/cors-missing', '/no-such-route']) {
      const reply = await send(guarded, 'GET', route, { headers: BEARER })
      expect(reply.status).toBe(404)
      expectReadableByThePage(reply)
    }
  })

  it('409 for a session id taken', async () => {
    const reply = await send(guarded, 'POST', '/sessions', jsonBody({ id: 'cors-taken' }))
    expect(reply).toMatchObject({ status: 409, body: { error: { code: 'API_ERR_SESSION_EXISTS' } } })
    expectReadableByThePage(reply)
  })

  it('413 for a body over the limit, 415 for a body that is not JSON', async () => {
    const tooLarge = await send(guarded, 'POST', '/sessions', jsonBody({ id: 'x'.repeat(11 * 1024 * 1024) }))
    expect(tooLarge.status).toBe(413)
    expectReadableByThePage(tooLarge)
    const notJson = await send(guarded, 'POST', '/sessions', { headers: { ...BEARER, 'content-type': 'application/x-www-form-urlencoded' }, body: 'id=a' })
    expect(notJson.status).toBe(415)
    expectReadableByThePage(notJson)
  })

  it('5xx: 507 while the data directory has no room', async () => {
    const reply = await send(noSpace, 'POST', '/sessions', jsonBody({ id: 'cors-full' }))
    expect(reply).toMatchObject({ status: 507, body: { error: { code: 'API_ERR_STORAGE_FULL' } } })
    expectReadableByThePage(reply)
  })

  it('the event stream', async () => {
    const stream = await openSse(guarded.url, 'cors-taken', { accessToken: TOKEN, headers: { origin: ALLOWED } })
    expect(stream.status).toBe(200)
    expectReadableByThePage(stream)
    await stream.close()
  })
})

describe('the API documentation (docs/api.md)', () => {
  const readme = readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8')
  const section = readme.slice(readme.indexOf('\n## From a browser\n')).split(/\n## (?!From a browser)/)[0] ?? ''

  it('states what the server sends a listed origin, and the reconnection delay, as the code has them', () => {
    expect(section).toContain(`Access-Control-Allow-Methods: ${CORS_METHODS.join(', ')}`)
    expect(section).toContain(`Access-Control-Allow-Headers: ${CORS_ALLOWED_HEADERS.join(', ')}`)
    expect(section).toContain(`Access-Control-Max-Age: ${CORS_MAX_AGE_SECONDS}`)
    for (const header of CORS_EXPOSED_HEADERS) expect(section).toContain(`\`${header}\``)
    expect(section).toContain(`retry: ${RECONNECT_DELAY_MS}`)
  })
})
