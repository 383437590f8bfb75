/**
 * Request bodies are application/json and nothing else. A web page on another origin sends
 * text/plain, a form or multipart without asking first (a CORS "simple" request); each is 415
 * on the routes that take a body and on those that take none (abort, close, the deletes), with
 * or without a token. A bare POST (curl -X POST), and an empty or JSON body labelled
 * application/json, still reach a route that takes no body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply } from '../../src/contracts/api.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { codeOf, inject, runningSession, scheduleStatus } from '../support/running-session.js'
import { until } from '../support/until.js'

const TOKEN = 'json-token-3Rw9pLx2'

let open: TestServer
let guarded: TestServer

beforeAll(async () => {
  ;[open, guarded] = await Promise.all([startTestServer(), startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })])
})

afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close()])
})

const BOUNDARY = '----form7MA4YWxkTrZu0gW'
/** The bodies a page sends without a preflight, as a browser labels them. */
const SIMPLE_BODIES: readonly [string, string, string][] = [
  ['text/plain', 'text/plain;charset=UTF-8', '{}'],
  ['multipart/form-data', `multipart/form-data; boundary=${BOUNDARY}`, `--${BOUNDARY}\r\nContent-Disposition: form-data; name="decision"\r\n\r\nallow\r\n--${BOUNDARY}--\r\n`],
  ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'decision=allow'],
]

const BODY_ROUTES: readonly [string, string][] = [
  ['POST', '/sessions'],
  ['POST', '/schedules'],
  ['POST', '/schedules/sch_x/calls'],
  ['POST', '/permissions/perm_x'],
  ['POST', '/tools'],
]

const NO_BODY_ROUTES: readonly [string, string][] = [
  ['POST', '/sessions/victim/abort'],
  ['POST', '/schedules/sch_x/close'],
  ['DELETE', '/sessions/victim'],
  ['DELETE', '/permissions/rules/rule_x'],
  ['DELETE', '/tools/no-such-tool'],
]

describe('a body that is not application/json', () => {
  for (const [method, url] of [...BODY_ROUTES, ...NO_BODY_ROUTES]) {
    it.each(SIMPLE_BODIES)(`${method} ${url} answers 415 to %s`, async (_name, type, payload) => {
      const reply = await inject(open, { method: method as 'POST', url, headers: { 'content-type': type }, payload })
      expect([reply.statusCode, codeOf(reply)]).toEqual([415, 'API_ERR_UNSUPPORTED_MEDIA_TYPE'])
      expect(reply.json<ErrorReply>().error.message).toContain('request bodies are application/json')
    })
  }

  it('an empty body labelled text/plain is 415 too, and so is a body with no content-type', async () => {
    const labelled = await inject(open, { method: 'POST', url: '/sessions/victim/abort', headers: { 'content-type': 'text/plain' }, payload: '' })
    expect([labelled.statusCode, codeOf(labelled)]).toEqual([415, 'API_ERR_UNSUPPORTED_MEDIA_TYPE'])
    const unlabelled = await inject(open, { method: 'POST', url: '/sessions/victim/abort', payload: Buffer.from('{}') })
    expect([unlabelled.statusCode, codeOf(unlabelled)]).toEqual([415, 'API_ERR_UNSUPPORTED_MEDIA_TYPE'])
  })

  it('a text/plain abort leaves a running command running; a JSON one, an empty one and a bare one stop it', async () => {
    const scheduleId = await runningSession(open, 'victim-running')
    const refused = await inject(open, { method: 'POST', url: '/sessions/victim-running/abort', headers: { 'content-type': 'text/plain;charset=UTF-8' }, payload: '{}' })
    expect(refused.statusCode).toBe(415)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await scheduleStatus(open, scheduleId)).toBe('running')
    // A bare POST, as `curl -X POST` sends it.
    const bare = await inject(open, { method: 'POST', url: '/sessions/victim-running/abort' })
    expect(bare.json()).toEqual({ sessionId: 'victim-running', aborted: true })
    await until(async () => ((await scheduleStatus(open, scheduleId)) === 'cancelled' ? true : undefined), 'the cancelled schedule')
  })

  it.each([
    ['no body and no content-type', 'bare', {}],
    ['an empty body labelled application/json', 'empty-json', { headers: { 'content-type': 'application/json' }, payload: '' }],
    ['{} as application/json', 'json', { headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '{}' }],
  ])('a route that takes no body takes %s', async (_case, id, options) => {
    expect((await open.json('POST', '/sessions', { id })).status).toBe(201)
    const reply = await inject(open, { method: 'POST', url: `/sessions/${id}/abort`, ...options })
    expect([reply.statusCode, reply.json<{ sessionId: string }>().sessionId]).toEqual([200, id])
    expect((await inject(open, { method: 'DELETE', url: `/sessions/${id}`, ...options })).statusCode).toBe(204)
  })

  it('a route that takes a body still refuses an empty application/json one (400)', async () => {
    const reply = await inject(open, { method: 'POST', url: '/sessions', headers: { 'content-type': 'application/json' }, payload: '' })
    expect([reply.statusCode, codeOf(reply)]).toEqual([400, 'API_ERR_VALIDATION'])
  })

  it('applies with a token too', async () => {
    const reply = await inject(guarded, { method: 'POST', url: '/sessions/victim/abort', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' }, payload: '{}' })
    expect([reply.statusCode, codeOf(reply)]).toEqual([415, 'API_ERR_UNSUPPORTED_MEDIA_TYPE'])
  })
})
