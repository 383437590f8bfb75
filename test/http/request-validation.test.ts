/**
 * Refusals at the edge: a value outside a set of choices is told the choices; numeric query
 * and header values are read as numbers only when written as plain decimals; what fastify
 * or the HTTP parser refuses reaches the client with a code of the catalogue, never its own.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply } from '../../src/contracts/api.js'
import { API_ERROR_CODES } from '../../src/contracts/api-errors.js'
import { startTestServer, type TestServer } from '../support/server.js'

let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
  expect((await s.json('POST', '/sessions', { id: 'known' })).status).toBe(201)
})

afterAll(async () => {
  await s?.close()
})

/** A raw request, as a client that writes HTTP by hand would send it. */
function raw(request: string): Promise<{ status: number; body: ErrorReply }> {
  const { port } = new URL(s.url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n')
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) as ErrorReply })
    })
  })
}

describe('validation messages', () => {
  it('names the allowed values of an enum', async () => {
    const reply = await s.json<ErrorReply>('POST', '/sessions', { permissionMode: 'yolo' })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toMatchObject({
      code: 'API_ERR_VALIDATION',
      message: 'body/permissionMode must be one of "default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"',
    })
    const answer = await s.json<ErrorReply>('POST', '/permissions/perm_x', { decision: 'maybe' })
    expect(answer.body.error.message).toBe('body/decision must be one of "allow", "deny"')
  })

  it('names an unknown property', async () => {
    const reply = await s.json<ErrorReply>('POST', '/sessions', { id: 'x', colour: 'blue' })
    expect(reply.body.error).toMatchObject({ code: 'API_ERR_VALIDATION', message: 'body must NOT have the property "colour"' })
  })
})

describe('numeric parameters', () => {
  it.each([
    ['/sessions?limit=2', 200],
    ['/sessions?limit=%205', 400],
    ['/sessions?limit=0x10', 400],
    ['/sessions?limit=1e2', 400],
    ['/sessions?limit=', 400],
    ['/sessions?limit=2.5', 400],
    ['/schedules/sch_none?wait=0.25', 404],
    ['/schedules/sch_none?wait=301', 400],
    ['/schedules/sch_none?wait=.5', 400],
  ])('GET %s answers %s', async (route, status) => {
    const reply = await s.json<ErrorReply>('GET', route)
    expect(reply.status).toBe(status)
    if (status === 400) expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
  })

  it('reads Last-Event-ID as a number, and refuses one that is no plain whole number', async () => {
    const refused = await s.json<ErrorReply>('GET', '/sessions/known/events', undefined, { 'last-event-id': '0x1' })
    expect(refused.status).toBe(400)
    expect(refused.body.error.message).toBe('headers/last-event-id must be integer')
    const stop = new AbortController()
    const stream = await fetch(`${s.url}/sessions/known/events?after=0`, { headers: { 'last-event-id': '0' }, signal: stop.signal })
    expect(stream.status).toBe(200)
    stop.abort()
  })
})

describe("fastify's and the HTTP parser's refusals", () => {
  it.each([
    ['a body that is not JSON', { method: 'POST', body: '{"id":', type: 'application/json' }, 400, 'API_ERR_VALIDATION'],
    ['an empty JSON body', { method: 'POST', body: '', type: 'application/json' }, 400, 'API_ERR_VALIDATION'],
    ['a body that is not application/json', { method: 'POST', body: '<id>x</id>', type: 'application/xml' }, 415, 'API_ERR_UNSUPPORTED_MEDIA_TYPE'],
    ['a body over the limit', { method: 'POST', body: JSON.stringify({ workspace: 'x'.repeat(11 * 1024 * 1024) }), type: 'application/json' }, 413, 'API_ERR_BODY_TOO_LARGE'],
  ])('%s', async (_case, request, status, code) => {
    const reply = await fetch(`${s.url}/sessions`, { method: request.method, body: request.body, headers: { 'content-type': request.type } })
    const body = (await reply.json()) as ErrorReply
    expect([reply.status, body.error.code]).toEqual([status, code])
    expect(body.error.message).not.toMatch(/FST_/)
  })

  it('a path parameter over the router limit', async () => {
    const reply = await s.json<ErrorReply>('GET', `/sessions/${'a'.repeat(1_100)}`)
    expect([reply.status, reply.body.error.code]).toEqual([414, 'API_ERR_URI_TOO_LONG'])
  })

  it('a malformed percent-encoding in the path', async () => {
    const reply = await s.json<ErrorReply>('GET', '/sessions/%E0%A4%A')
    expect([reply.status, reply.body.error.code]).toEqual([400, 'API_ERR_VALIDATION'])
  })

  it('headers too large, and a request line that is no HTTP', async () => {
    const large = await raw(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect([large.status, large.body.error.code]).toEqual([431, 'API_ERR_HEADERS_TOO_LARGE'])
    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n')
    expect([garbage.status, garbage.body.error.code]).toEqual([400, 'API_ERR_BAD_REQUEST'])
  })

  it('every code above is in the catalogue of reply codes', () => {
    for (const code of ['API_ERR_VALIDATION', 'API_ERR_UNSUPPORTED_MEDIA_TYPE', 'API_ERR_BODY_TOO_LARGE', 'API_ERR_URI_TOO_LONG', 'API_ERR_HEADERS_TOO_LARGE', 'API_ERR_BAD_REQUEST']) {
      expect(Object.keys(API_ERROR_CODES)).toContain(code)
    }
  })
})
