/**
 * Without a token, a request a web page on another site makes the browser send (a form, an
 * `<img>`, a no-cors fetch) is 403 before anything runs: one whose Origin is neither loopback
 * nor listed in TOOLEXEC_CORS_ORIGINS, on every method, or, with no Origin, one the browser
 * marks `Sec-Fetch-Site: cross-site` (but a person following a link to a page). Loopback
 * origins, the listed ones and clients that send neither header (curl, SDKs) are answered as
 * before; with a token the token is the guard and the Origin is not looked at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply } from '../../src/contracts/api.js'
import { API_ERROR_CODES } from '../../src/contracts/api-errors.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { codeOf, inject, runningSession, scheduleStatus } from '../support/running-session.js'

const TOKEN = 'csrf-token-8Kq3vW7z'
const LISTED = 'https://app.example.com'
const FOREIGN = 'http://attacker.example'

let open: TestServer
let listed: TestServer
let guarded: TestServer

beforeAll(async () => {
  ;[open, listed, guarded] = await Promise.all([
    startTestServer(),
    startTestServer({ env: { TOOLEXEC_CORS_ORIGINS: LISTED } }),
    startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_CORS_ORIGINS: LISTED } }),
  ])
})

afterAll(async () => {
  await Promise.all([open?.close(), listed?.close(), guarded?.close()])
})

describe('without a token, a request from a foreign origin', () => {
  const FOREIGN_ORIGINS = [FOREIGN, 'null', 'http://127.0.0.1.attacker.example', 'http://localhost.attacker.example:8787', 'https://10.0.0.5', 'file://', 'not an origin']

  it.each(FOREIGN_ORIGINS)('is refused with 403 when its Origin is %s, on every method', async (origin) => {
    for (const [method, url] of [
      ['POST', '/sessions/victim/abort'],
      ['DELETE', '/sessions/victim'],
      ['GET', '/sessions'],
      ['GET', '/healthz'],
      ['OPTIONS', '/sessions'],
    ] as const) {
      const reply = await inject(open, { method, url, headers: { origin } })
      expect([reply.statusCode, codeOf(reply)], `${method} ${url}`).toEqual([403, 'API_ERR_ORIGIN_NOT_ALLOWED'])
    }
    const json = await inject(open, { method: 'POST', url: '/sessions', headers: { origin, 'content-type': 'application/json' }, payload: '{"id":"planted"}' })
    expect(json.statusCode).toBe(403)
    expect((await open.json('GET', '/sessions/planted')).status).toBe(404)
  })

  it('names the origin and what to do in the message', async () => {
    const reply = await inject(open, { method: 'POST', url: '/sessions/victim/abort', headers: { origin: FOREIGN } })
    expect(reply.json<ErrorReply>().error.message).toBe(
      `Origin ${FOREIGN} may not call this server: without a token it answers pages from loopback origins and TOOLEXEC_CORS_ORIGINS only; set TOOLEXEC_TOKEN to call it from elsewhere`,
    )
    expect(Object.keys(API_ERROR_CODES)).toContain('API_ERR_ORIGIN_NOT_ALLOWED')
  })

  it('leaves a running command running', async () => {
    const scheduleId = await runningSession(open, 'victim-origin')
    const reply = await inject(open, { method: 'POST', url: '/sessions/victim-origin/abort', headers: { origin: FOREIGN } })
    expect(reply.statusCode).toBe(403)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await scheduleStatus(open, scheduleId)).toBe('running')
    expect((await open.json('POST', '/sessions/victim-origin/abort')).status).toBe(200)
  })

  it('with no Origin, is refused when the browser marks it Sec-Fetch-Site: cross-site', async () => {
    for (const [method, url, mode] of [
      ['POST', '/sessions/victim/abort', 'no-cors'],
      ['GET', '/sessions', 'no-cors'],
      ['GET', '/sessions/victim/events', 'cors'],
      ['POST', '/sessions/victim/abort', 'navigate'],
    ] as const) {
      const reply = await inject(open, { method, url, headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': mode } })
      expect([reply.statusCode, codeOf(reply)], `${method} ${url} ${mode}`).toEqual([403, 'API_ERR_ORIGIN_NOT_ALLOWED'])
    }
  })

  it('with no Origin, answers a person following a link from another site to a page', async () => {
    const console = await inject(open, { method: 'GET', url: '/', headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } })
    expect(console.statusCode).toBe(200)
  })
})

describe('without a token, the origins it answers', () => {
  it.each(['http://127.0.0.1:8787', 'http://127.0.0.1', 'https://127.3.4.5:9443', 'http://localhost:5173', 'https://LOCALHOST', 'http://[::1]:8787'])('answers a page from %s', async (origin) => {
    const abort = await inject(open, { method: 'POST', url: '/sessions/nobody/abort', headers: { origin } })
    expect([abort.statusCode, codeOf(abort)]).toEqual([404, 'API_ERR_SESSION_NOT_FOUND'])
    expect((await inject(open, { method: 'GET', url: '/sessions', headers: { origin } })).statusCode).toBe(200)
  })

  it('answers a page from a listed CORS origin, with its allow header; refuses the others', async () => {
    const allowed = await inject(listed, { method: 'POST', url: '/sessions', headers: { origin: LISTED, 'content-type': 'application/json' }, payload: '{"id":"from-listed"}' })
    expect(allowed.statusCode).toBe(201)
    expect(allowed.headers['access-control-allow-origin']).toBe(LISTED)
    const preflight = await inject(listed, { method: 'OPTIONS', url: '/sessions', headers: { origin: LISTED, 'access-control-request-method': 'POST' } })
    expect(preflight.statusCode).toBe(204)
    const other = await inject(listed, { method: 'POST', url: '/sessions/from-listed/abort', headers: { origin: FOREIGN } })
    expect([other.statusCode, codeOf(other)]).toEqual([403, 'API_ERR_ORIGIN_NOT_ALLOWED'])
  })

  it.each(['same-origin', 'same-site', 'none'])('answers Sec-Fetch-Site: %s', async (site) => {
    const reply = await inject(open, { method: 'POST', url: '/sessions/nobody/abort', headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' } })
    expect(reply.statusCode).toBe(404)
  })
})

describe('with a token', () => {
  it('the token is the guard: a foreign Origin with the token is answered, without it 401', async () => {
    const withToken = await inject(guarded, { method: 'GET', url: '/sessions', headers: { origin: FOREIGN, authorization: `Bearer ${TOKEN}` } })
    expect(withToken.statusCode).toBe(200)
    const cross = await inject(guarded, { method: 'GET', url: '/sessions', headers: { 'sec-fetch-site': 'cross-site', authorization: `Bearer ${TOKEN}` } })
    expect(cross.statusCode).toBe(200)
    const without = await inject(guarded, { method: 'POST', url: '/sessions/victim/abort', headers: { origin: FOREIGN } })
    expect([without.statusCode, codeOf(without)]).toEqual([401, 'API_ERR_UNAUTHORIZED'])
  })
})
