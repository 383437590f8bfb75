import http from 'node:http'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply } from '../../src/contracts/api.js'
import { rowCounts } from '../support/row-counts.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { openSse } from '../support/sse-client.js'

const TOKEN = 'tok-7Hq2xZ9w'
const ALLOWED = 'http://a.example'
const BEARER = { authorization: `Bearer ${TOKEN}` }

/** Every line the server logs, kept in memory. */
const logLines: string[] = []
const memory = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.length > 0),
    )
    done()
  },
})

let guarded: TestServer
let open: TestServer

beforeAll(async () => {
  ;[guarded, open] = await Promise.all([startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_CORS_ORIGINS: ALLOWED }, logger: pino({ level: 'trace' }, memory) }), startTestServer()])
  const created = await guarded.json('POST', '/sessions', { id: 'guarded' }, BEARER)
  expect(created.status).toBe(201)
})

afterAll(async () => {
  await Promise.all([guarded.close(), open.close()])
})

const ROUTES: [string, string, unknown?][] = [
  ['POST', '/sessions', {}],
  ['GET', '/sessions/guarded'],
  ['POST', '/sessions/guarded/abort'],
  ['GET', '/sessions/guarded/history'],
  ['GET', '/sessions/guarded/events'],
  ['POST', '/schedules', { sessionId: 'guarded', createSession: {}, calls: [] }],
  ['GET', '/schedules/sch_x'],
  ['POST', '/schedules/sch_x/calls', { id: 'c', name: 'Read', input: {} }],
  ['POST', '/schedules/sch_x/close'],
  ['POST', '/permissions/perm_x', { decision: 'allow' }],
  ['GET', '/permissions?status=pending'],
  ['GET', '/artifacts/guarded/tool-result-x'],
  ['GET', '/tools'],
  ['GET', '/no-such-route'],
  ['OPTIONS', '/schedules'],
]

const UNAUTHORIZED = { error: { code: 'API_ERR_UNAUTHORIZED', message: 'Missing or invalid bearer token' } }

describe('bearer token (TOOLEXEC_TOKEN)', () => {
  it.each(ROUTES)('%s %s without a token replies 401 in the error format and does nothing', async (method, route, body) => {
    const before = await rowCounts(guarded)
    const reply = await guarded.json<ErrorReply>(method, route, body)
    expect(reply).toEqual({ status: 401, body: UNAUTHORIZED })
    expect(await rowCounts(guarded)).toEqual(before)
  })

  it.each([
    ['a wrong token', `Bearer ${TOKEN}x`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 4)}`],
    ['another scheme', `Basic ${TOKEN}`],
    ['an empty bearer', 'Bearer '],
  ])('replies 401 for %s', async (_case, authorization) => {
    expect(await guarded.json('GET', '/tools', undefined, { authorization })).toEqual({ status: 401, body: UNAUTHORIZED })
  })

  it.each(ROUTES.filter(([method, route]) => method !== 'OPTIONS' && route !== '/sessions/guarded/events'))('%s %s with the token gets past authentication', async (method, route, body) => {
    const reply = await guarded.json(method, route, body, BEARER)
    expect(reply.status).not.toBe(401)
  })

  it.each([[`bearer ${TOKEN}`], [`BEARER ${TOKEN}`], [`Bearer  ${TOKEN}`]])('takes the scheme in any case, with any spacing', async (authorization) => {
    expect((await guarded.json('GET', '/tools', undefined, { authorization })).status).toBe(200)
  })

  it('GET /healthz needs no token', async () => {
    expect(await guarded.json('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } })
  })

  it('the API reference needs no token: /openapi.json, and /docs with its assets and the document it shows', async () => {
    const document = await guarded.json<{ openapi: string; components: { securitySchemes: Record<string, unknown> } }>('GET', '/openapi.json')
    expect(document.status).toBe(200)
    expect(document.body.openapi).toBe('3.1.0')
    // Swagger UI's Authorize button offers this scheme and then sends the bearer on "Try it out".
    expect(document.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    const page = await fetch(`${guarded.url}/docs`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('swagger-initializer.js')
    for (const asset of ['/docs/static/swagger-initializer.js', '/docs/static/swagger-ui-bundle.js', '/docs/json', '/docs/yaml']) {
      expect((await fetch(`${guarded.url}${asset}`)).status, asset).toBe(200)
    }
    expect(await guarded.json('GET', '/docsx')).toEqual({ status: 401, body: UNAUTHORIZED })
  })

  it('the events route takes the token as a bearer header or as ?access_token=, other routes do not', async () => {
    const byHeader = await openSse(guarded.url, 'guarded', { headers: BEARER })
    expect(byHeader.status).toBe(200)
    await byHeader.close()
    const byQuery = await openSse(guarded.url, 'guarded', { accessToken: TOKEN })
    expect(byQuery.status).toBe(200)
    expect(byQuery.headers.get('content-type')).toMatch(/^text\/event-stream/)
    await byQuery.close()
    const wrong = await openSse(guarded.url, 'guarded', { accessToken: 'nope' })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual(UNAUTHORIZED)
    expect((await guarded.json('GET', `/tools?access_token=${TOKEN}`)).status).toBe(401)
  })

  it('no log line of a request carrying ?access_token= contains the token', async () => {
    const stream = await openSse(guarded.url, 'guarded', { accessToken: TOKEN })
    expect(stream.status).toBe(200)
    await stream.close()
    const missing = await guarded.json<ErrorReply>('GET', `/nowhere?access_token=${TOKEN}`, undefined, BEARER)
    expect(missing.body.error.message).toBe('Route GET /nowhere?access_token=[redacted] not found')
    const deadline = Date.now() + 3_000
    while (!logLines.some((line) => line.includes('/sessions/guarded/events?access_token=[redacted]')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(logLines.some((line) => line.includes('/sessions/guarded/events?access_token=[redacted]'))).toBe(true)
    expect(logLines.filter((line) => line.includes(TOKEN))).toEqual([])
  })

  it.each([
    ['a percent-encoded name', 'access%5Ftoken'],
    ['a percent-encoded first letter', '%61ccess_token'],
  ])('the query token under %s is redacted from logs and error messages as well', async (_case, name) => {
    // The query parser decodes names, so this one opens the stream like ?access_token= does.
    const stream = await fetch(`${guarded.url}/sessions/guarded/events?${name}=${TOKEN}`, { headers: { accept: 'text/event-stream' } })
    expect(stream.status).toBe(200)
    await stream.body?.cancel()
    expect((await guarded.json('GET', `/tools?${name}=${TOKEN}`)).status).toBe(401)
    const missing = await guarded.json<ErrorReply>('GET', `/nowhere?${name}=${TOKEN}`, undefined, BEARER)
    expect(missing.body.error.message).toBe(`Route GET /nowhere?${name}=[redacted] not found`)
    const deadline = Date.now() + 3_000
    while (!logLines.some((line) => line.includes(`/tools?${name}=[redacted]`)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(logLines.some((line) => line.includes(`/tools?${name}=[redacted]`))).toBe(true)
    expect(logLines.filter((line) => line.includes(TOKEN))).toEqual([])
  })
})

describe('without a token, only loopback names', () => {
  /** One request with the Host header a browser sends for a page whose name now resolves to 127.0.0.1. */
  const asHost = (server: TestServer, host: string, method: string, route: string, body?: unknown): Promise<number> =>
    new Promise((resolve, reject) => {
      const target = new URL(server.url)
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const headers: Record<string, string> = { host, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) }
      const request = http.request({ host: target.hostname, port: target.port, method, path: route, headers }, (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      })
      request.on('error', reject)
      request.end(payload)
    })

  it.each(['rebound.example', 'rebound.example:8787', '10.0.0.5'])('refuses Host %s with 403 and writes nothing', async (host) => {
    const before = await rowCounts(open)
    expect(await asHost(open, host, 'POST', '/sessions', { id: 'rebound' })).toBe(403)
    expect(await asHost(open, host, 'GET', '/tools')).toBe(403)
    expect(await rowCounts(open)).toEqual(before)
  })

  it.each(['localhost', '127.0.0.1', '[::1]'])('answers Host %s with the port', async (name) => {
    const port = new URL(open.url).port
    expect(await asHost(open, `${name}:${port}`, 'GET', '/tools')).toBe(200)
    expect(await asHost(open, name, 'GET', '/healthz')).toBe(200)
  })

  it('leaves Host alone when a token guards the server', async () => {
    expect(await asHost(guarded, 'rebound.example', 'GET', '/healthz')).toBe(200)
  })
})

describe('CORS (TOOLEXEC_CORS_ORIGINS)', () => {
  const preflight = (server: TestServer, origin: string): Promise<Response> =>
    fetch(`${server.url}/schedules`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    })

  it('allows the preflight from a listed origin, without a token', async () => {
    const response = await preflight(guarded, ALLOWED)
    expect(response.status).toBeLessThan(300)
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization')
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
  })

  it('gives another origin no allow header', async () => {
    const response = await preflight(guarded, 'http://b.example')
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    const simple = await fetch(`${guarded.url}/tools`, { headers: { origin: 'http://b.example', ...BEARER } })
    expect(simple.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('lets a listed origin read replies', async () => {
    const simple = await fetch(`${guarded.url}/tools`, { headers: { origin: ALLOWED, ...BEARER } })
    expect(simple.status).toBe(200)
    expect(simple.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  })

  it('allows no origin at all by default; without a token a foreign origin is refused, a loopback one needs no token', async () => {
    const response = await preflight(open, ALLOWED)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    const foreign = await fetch(`${open.url}/tools`, { headers: { origin: ALLOWED } })
    expect(foreign.status).toBe(403)
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
    const loopback = await fetch(`${open.url}/tools`, { headers: { origin: new URL(open.url).origin } })
    expect(loopback.status).toBe(200)
    expect(loopback.headers.get('access-control-allow-origin')).toBeNull()
  })
})
