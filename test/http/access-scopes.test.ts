/**
 * Every operation of the OpenAPI document (so a new route cannot be missed) called by a key of
 * every role, and by a key of every role limited to another session: each answer is the one the
 * scope table says (not 403 when the scope is held, 403 API_ERR_FORBIDDEN naming it when not,
 * 404 as for a session that does not exist when the session is not the key's), and no body
 * carries anything of a session the key does not see.
 */
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROLES, type RoleName } from '../../src/contracts/access.js'
import type { CreatedKey } from '../../src/contracts/api-keys.js'
import { AUTHENTICATED, ROUTE_ACCESS } from '../../src/http/route-scopes.js'
import { inject } from '../support/running-session.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDir } from '../support/temp-dirs.js'
import { until } from '../support/until.js'

const TOKEN = 'admin-token-4f9c2a7e1b'
const ADMIN = { authorization: `Bearer ${TOKEN}` }

interface Operation {
  readonly id: string
  readonly method: string
  /** As fastify names it: /sessions/:id */
  readonly route: string
  readonly security: Record<string, string[]>[] | undefined
}

/** A session of its own workspace with a finished Read in its history and an Edit awaiting approval. */
interface Fixture {
  readonly session: string
  readonly workspace: string
  readonly schedule: string
  readonly permission: string
}

interface Call {
  readonly url: string
  readonly body?: unknown
}

let server: TestServer
let operations: Operation[]
let counter = 0

const fresh = (prefix: string): string => `${prefix}-${++counter}`

/** The request of each operation, against the fixture's session. */
const CALLS: Readonly<Record<string, (f: Fixture) => Call>> = {
  createSession: (f) => ({ url: '/sessions', body: { id: fresh('new'), workspace: f.workspace } }),
  listSessions: () => ({ url: '/sessions' }),
  getSession: (f) => ({ url: `/sessions/${f.session}` }),
  updateSession: (f) => ({ url: `/sessions/${f.session}`, body: { label: 'probe' } }),
  getHistory: (f) => ({ url: `/sessions/${f.session}/history` }),
  streamEvents: (f) => ({ url: `/sessions/${f.session}/events` }),
  createSchedule: (f) => ({ url: '/schedules', body: { sessionId: f.session, calls: [{ id: fresh('read'), name: 'Read', input: { file_path: 'notes.txt' } }] } }),
  addScheduleCall: (f) => ({ url: `/schedules/${f.schedule}/calls`, body: { id: fresh('add'), name: 'Read', input: { file_path: 'notes.txt' } } }),
  closeSchedule: (f) => ({ url: `/schedules/${f.schedule}/close` }),
  getSchedule: (f) => ({ url: `/schedules/${f.schedule}` }),
  listPermissions: () => ({ url: '/permissions?status=pending' }),
  answerPermission: (f) => ({ url: `/permissions/${f.permission}`, body: { decision: 'deny' } }),
  listProjectRules: () => ({ url: '/permissions/rules' }),
  deleteProjectRule: () => ({ url: '/permissions/rules/rule_none' }),
  getArtifact: (f) => ({ url: `/artifacts/${f.session}/no-such-artifact` }),
  listTools: () => ({ url: '/tools' }),
  addHttpTool: () => ({
    url: '/tools',
    body: { name: fresh('probe_tool').replace(/-/g, '_'), description: 'probe', inputSchema: { type: 'object' }, readOnly: true, concurrentSafe: true, url: 'http://127.0.0.1:9/x' },
  }),
  deleteHttpTool: () => ({ url: '/tools/no_such_tool' }),
  getCluster: () => ({ url: '/cluster' }),
  health: () => ({ url: '/healthz' }),
  getProtectedResourceMetadata: () => ({ url: '/.well-known/oauth-protected-resource' }),
  createKey: () => ({ url: '/keys', body: { name: fresh('minted'), scopes: ['sessions:read'] } }),
  listKeys: () => ({ url: '/keys' }),
  revokeKey: () => ({ url: '/keys/key_none' }),
  listAudit: () => ({ url: '/audit' }),
  whoAmI: () => ({ url: '/me' }),
  createSessionLink: (f) => ({ url: `/sessions/${f.session}/links`, body: { purpose: 'watch' } }),
  revokeSessionLink: (f) => ({ url: `/sessions/${f.session}/links/link_none` }),
  // Last: they change the session the calls before them read.
  abortSession: (f) => ({ url: `/sessions/${f.session}/abort` }),
  deleteSession: (f) => ({ url: `/sessions/${f.session}` }),
}

const ORDER = Object.keys(CALLS)

async function json<T>(method: string, url: string, body?: unknown, headers: Record<string, string> = ADMIN): Promise<{ status: number; body: T }> {
  const reply = await send(method, { url, body }, headers)
  return { status: reply.statusCode, body: (reply.body.length > 0 ? reply.json() : undefined) as T }
}

function send(method: string, call: Call, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body)
  return inject(server, {
    method: method as 'GET',
    url: call.url,
    headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload }),
  })
}

/** An event stream never ends: its status is read on a real socket, which is then closed. */
async function streamStatus(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const controller = new AbortController()
  const response = await fetch(`${server.url}${url}`, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal })
  const body = response.status === 200 ? '' : await response.text()
  controller.abort()
  return { status: response.status, body }
}

async function fixture(name: string): Promise<Fixture> {
  const workspace = await tempDir(`access-${name}`)
  const session = fresh(name)
  const read = await json<{ scheduleId: string }>('POST', '/schedules', {
    sessionId: session,
    createSession: { workspace },
    calls: [{ id: 'r1', name: 'Read', input: { file_path: `secret-of-${session}.txt` } }],
  })
  expect(read.status).toBe(202)
  await json('GET', `/schedules/${read.body.scheduleId}?wait=10`)
  const edit = await json<{ scheduleId: string }>('POST', '/schedules', { sessionId: session, calls: [{ id: 'e1', name: 'Edit', input: { file_path: `secret-of-${session}.txt` } }] })
  expect(edit.status).toBe(202)
  const permission = await until(async () => (await json<{ requests: { id: string }[] }>('GET', `/permissions?sessionId=${session}`)).body.requests[0]?.id, 'the Edit to ask')
  return { session, workspace, schedule: edit.body.scheduleId, permission }
}

async function mint(body: Record<string, unknown>): Promise<Record<string, string>> {
  const reply = await json<CreatedKey>('POST', '/keys', body)
  expect(reply.status).toBe(201)
  return { authorization: `Bearer ${reply.body.secret}` }
}

async function call(operation: Operation, f: Fixture, headers: Record<string, string>): Promise<{ status: number; body: string; request: Call }> {
  const request = (CALLS[operation.id] as (f: Fixture) => Call)(f)
  if (operation.id === 'streamEvents') return { ...(await streamStatus(request.url, headers)), request }
  const reply = await send(operation.method, request, headers)
  return { status: reply.statusCode, body: reply.body, request }
}

const codeIn = (body: string): string | undefined => (JSON.parse(body) as { error?: { code?: string } }).error?.code

const scopeOf = (operation: Operation): string | null | undefined => ROUTE_ACCESS[`${operation.method} ${operation.route}`]?.scope
const holds = (role: RoleName, scope: string | null | undefined): boolean => scope === null || scope === AUTHENTICATED || (ROLES[role] as readonly string[]).includes(scope ?? '')

/** What of the session no request named may appear in no reply. */
function secretsOf(f: Fixture, request: Call): string[] {
  const named = `${request.url} ${JSON.stringify(request.body ?? null)}`
  return [f.workspace, `secret-of-${f.session}`, f.session, f.schedule, f.permission].filter((value) => !named.includes(value))
}

beforeAll(async () => {
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
  const document = (await inject(server, { method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { operationId: string; security?: Record<string, string[]>[] }>> }>()
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ id: op.operationId, method: method.toUpperCase(), route: path.replace(/\{(\w+)\}/g, ':$1'), security: op.security })),
  )
})

afterAll(async () => {
  await server.close()
})

describe('the scope table', () => {
  it('names every operation of the document, each with one scope, which the document shows as its security', () => {
    expect(operations.length).toBeGreaterThan(20)
    expect(operations.map((op) => op.id).sort()).toEqual([...ORDER].sort())
    for (const operation of operations) {
      const scope = scopeOf(operation)
      expect(scope, `${operation.method} ${operation.route}`).not.toBeUndefined()
      if (scope === null) expect(operation.security).toEqual([])
      else if (scope === AUTHENTICATED) expect(operation.security, operation.id).toEqual([{ bearer: [] }])
      else expect(operation.security?.[0], operation.id).toEqual({ bearer: [scope] })
    }
  })
})

describe.each(Object.keys(ROLES) as RoleName[])('a key of the role %s', (role) => {
  it('is answered as the scope table says on every operation, and a key limited to another session sees nothing of this one', async () => {
    const [mine, other] = [await fixture(`mine-${role}`), await fixture(`other-${role}`)]
    const limited = await mint({ name: `${role} of another session`, role, sessions: [other.session] })
    const full = await mint({ name: `${role} key`, role })
    const byOrder = [...operations].sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id))
    for (const operation of byOrder) {
      const scope = scopeOf(operation)
      const access = ROUTE_ACCESS[`${operation.method} ${operation.route}`]
      const reply = await call(operation, mine, limited)
      const what = `${role} limited to another session: ${operation.id} -> ${reply.status} ${reply.body}`
      if (!holds(role, scope)) {
        expect([reply.status, codeIn(reply.body)], what).toEqual([403, 'API_ERR_FORBIDDEN'])
        expect(reply.body, what).toContain(String(scope))
      } else if (operation.id === 'createSession') {
        expect([reply.status, codeIn(reply.body)], what).toEqual([403, 'API_ERR_FORBIDDEN'])
      } else if (access?.session !== undefined) {
        expect(reply.status, what).toBe(404)
        await expectAsIfAbsent(operation, mine, reply.body)
      } else {
        expect(reply.status, what).toBeLessThan(500)
        expect(reply.status, what).not.toBe(403)
      }
      for (const secret of secretsOf(mine, reply.request)) expect(reply.body, `${what}: ${secret}`).not.toContain(secret)
    }
    for (const operation of byOrder) {
      const scope = scopeOf(operation)
      const reply = await call(operation, mine, full)
      const what = `${role}: ${operation.id} -> ${reply.status} ${reply.body}`
      expect(reply.status, what).toBeLessThan(500)
      if (holds(role, scope)) expect(reply.status, what).not.toBe(403)
      else expect([reply.status, codeIn(reply.body)], what).toEqual([403, 'API_ERR_FORBIDDEN'])
    }
  })
})

/** The body the administrator gets for the same request about sessions, schedules and requests that do not exist, the ids swapped back. */
async function expectAsIfAbsent(operation: Operation, f: Fixture, body: string): Promise<void> {
  const ghost: Fixture = { session: 'ghost-session', workspace: f.workspace, schedule: 'ghost-schedule', permission: 'ghost-permission' }
  const absent = await call(operation, ghost, ADMIN)
  const swapped = absent.body.replaceAll(ghost.session, f.session).replaceAll(ghost.schedule, f.schedule).replaceAll(ghost.permission, f.permission)
  expect([absent.status, JSON.parse(body)], operation.id).toEqual([404, JSON.parse(swapped)])
}
