/**
 * The running server against openapi.yaml, which generated clients trust. Fastify sends replies
 * as the routes build them, unchecked, so here every operation is driven through each status it
 * documents, and every reply must have a documented status and a body that validates against
 * that status's schema.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { exportSPKI, generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply, FormattedScheduleReply, PermissionRequestRecord, ProjectRule, ScheduleAcceptedReply, ScheduleReply, SessionList } from '../../src/contracts/api.js'
import { MODEL_FORMATS, type ModelFormat } from '../../src/contracts/model-formats.js'
import { BODY_LIMIT_BYTES } from '../../src/http/json-body.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { Contract, send, type Operation, type Reply, type RequestOptions } from '../support/contract.js'
import { rowCounts } from '../support/row-counts.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { expectCarriesModelContent, PIXEL_PNG } from '../support/model-formats.js'
import { dumpTool, sleepTool } from '../support/tools.js'
import { tempDirSync } from '../support/temp-dirs.js'

const TOKEN = 'contract-token'
/** One character over every path id's limit. */
const LONG_ID = 'x'.repeat(201)
const REBOUND_HOST = 'rebound.example'

type Api = (method: string, url: string, options?: RequestOptions) => Promise<Reply>

const contract = Contract.load()
let secured: TestServer
let loopbackOnly: TestServer
/** A server told its data directory has no free space (test/http/full-disk.test.ts fills a real one). */
let noSpace: TestServer
/** A server that accepts the JWTs of an identity provider (test/http/identity-tokens.test.ts tries them). */
let withIdentityProvider: TestServer

/** Sends the request and checks the reply against the operation it reached. */
function apiOf(server: () => TestServer, headers: Record<string, string>): Api {
  return async (method, url, options = {}) => {
    const reply = await send(server().url, method, url, { ...options, headers: { ...headers, ...options.headers } })
    contract.check(contract.operationOf(method, url), reply)
    return reply
  }
}

const api = apiOf(() => secured, { authorization: `Bearer ${TOKEN}` })
const anonymous = apiOf(() => secured, {})
const rebound = apiOf(() => loopbackOnly, { host: `${REBOUND_HOST}:80` })
const crossSite = apiOf(() => loopbackOnly, { origin: 'http://attacker.example' })
const full = apiOf(() => noSpace, {})
const anonymousWithIdentityProvider = apiOf(() => withIdentityProvider, {})

function sqliteErrorOfGarbageFile(dir: string): unknown {
  const file = path.join(dir, 'garbage.db')
  writeFileSync(file, Buffer.alloc(4_096, 'garbage '))
  const db = new Database(file)
  try {
    db.prepare('SELECT * FROM sqlite_master').all()
  } catch (error) {
    return error
  } finally {
    db.close()
  }
  throw new Error('a garbage file was read as a database')
}

async function expectStatus(reply: Promise<Reply>, status: number): Promise<Reply> {
  const settled = await reply
  expect(settled.status, settled.text.slice(0, 300)).toBe(status)
  return settled
}

async function finished(scheduleId: string): Promise<ScheduleReply> {
  const reply = await expectStatus(api('GET', `/schedules/${scheduleId}?wait=10`), 200)
  return reply.body as ScheduleReply
}

async function pendingRequest(sessionId: string, callId: string): Promise<PermissionRequestRecord> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const reply = await expectStatus(api('GET', `/permissions?sessionId=${sessionId}&status=pending`), 200)
    const request = (reply.body as { requests: PermissionRequestRecord[] }).requests.find((candidate) => candidate.callId === callId)
    if (request !== undefined) return request
    if (Date.now() > deadline) throw new Error(`no pending request for ${callId}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A concrete URL of the operation, every path parameter `value`. */
function someUrlOf(route: string, value = 'x'): string {
  return route.replace(/\{[^}]+\}/g, value)
}

function operationsWith(predicate: (operation: Operation) => boolean): Operation[] {
  const found = contract.operations.filter(predicate)
  expect(found.length).toBeGreaterThan(0)
  return found
}

beforeAll(async () => {
  // The real built-in tools, so that records carry the results and displays they really make.
  secured = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION: '1' }, tools: [...builtinTools(), dumpTool, sleepTool()] })
  loopbackOnly = await startTestServer()
  noSpace = await startTestServer({ storageSpace: { freeBytes: () => 0 } })
  const keyFile = path.join(tempDirSync('contract-idp'), 'idp.pem')
  writeFileSync(keyFile, await exportSPKI((await generateKeyPair('ES256')).publicKey))
  withIdentityProvider = await startTestServer({
    env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_JWT_ISSUER: 'https://idp.example.com', TOOLEXEC_JWT_AUDIENCE: 'https://toolexec.example.com', TOOLEXEC_JWT_KEY_FILE: keyFile },
  })
})

afterAll(async () => {
  await Promise.all([secured?.close(), loopbackOnly?.close(), noSpace?.close(), withIdentityProvider?.close()])
})

describe('every operation of openapi.yaml against a running server', () => {
  it('health answers without a token, 503 once the database showed damage', async () => {
    await expectStatus(anonymous('GET', '/healthz'), 200)
    const damaged = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
    try {
      // The real flow (a damaged page read by a route) is test/http/database-damage.test.ts; here, SQLite's own error for a non-database.
      damaged.runtime.database.noteFailure(sqliteErrorOfGarbageFile(damaged.dataDir))
      const reply = await send(damaged.url, 'GET', '/healthz')
      contract.check(contract.operationOf('GET', '/healthz'), reply)
      expect([reply.status, (reply.body as { error: { code: string } }).error.code]).toEqual([503, 'API_ERR_STORAGE_CORRUPT'])
    } finally {
      await damaged.close()
    }
  })

  it('cluster: this server alone on SQLite, with its id and heartbeat', async () => {
    const reply = await expectStatus(api('GET', '/cluster'), 200)
    expect(reply.body).toMatchObject({ self: secured.runtime.ownership.nodeId, backend: 'sqlite', nodes: [{ id: secured.runtime.ownership.nodeId, live: true }] })
  })

  it('sessions: created, refused when the id is taken or the body malformed, read, listed a page at a time', async () => {
    await expectStatus(api('POST', '/sessions', { body: { id: 'contract-a' } }), 201)
    await expectStatus(api('POST', '/sessions', { body: { id: 'contract-b', permissionMode: 'default', interactive: true, permissionTimeoutMs: 60_000 } }), 201)
    await expectStatus(api('POST', '/sessions', { body: { id: 'contract-a' } }), 409)
    await expectStatus(api('POST', '/sessions', { body: { permissionMode: 'sometimes' } }), 400)
    await expectStatus(api('GET', '/sessions/contract-a'), 200)
    await expectStatus(api('GET', '/sessions/contract-missing'), 404)
    await expectStatus(api('PATCH', '/sessions/contract-a', { body: { label: 'Contract A' } }), 200)
    await expectStatus(api('PATCH', '/sessions/contract-missing', { body: { label: 'Nowhere' } }), 404)
    const page = await expectStatus(api('GET', '/sessions?limit=1'), 200)
    const next = (page.body as SessionList).next
    expect(next).toBeDefined()
    await expectStatus(api('GET', `/sessions?limit=1&before=${next}`), 200)
    await expectStatus(api('GET', '/sessions?limit=0'), 400)
    await expectStatus(api('GET', '/sessions?limit=501'), 400)
    await expectStatus(api('GET', '/sessions?before=contract-missing'), 404)
  })

  it('a schedule: accepted, refused for a reused call id or a malformed body, read with its records, history and artifact', async () => {
    const calls = [
      { id: 'read-1', name: 'Read', input: { file_path: 'notes.txt' } },
      { id: 'dump-1', name: 'Dump', input: { text: 'a line longer than the budget of sixty-four bytes, so saved aside\n'.repeat(4) } },
      { id: 'missing-1', name: 'NoSuchTool', input: {} },
    ]
    const accepted = await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-a', createSession: {}, calls } }), 202)
    const scheduleId = (accepted.body as ScheduleAcceptedReply).scheduleId
    await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-a', calls: [calls[0]] } }), 409)
    await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-a', calls: 'none' } }), 400)
    await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-never-created', calls } }), 404)
    const cycle = [
      { id: 'cycle-1', name: 'Read', input: { file_path: 'a' }, dependsOn: ['cycle-2'] },
      { id: 'cycle-2', name: 'Read', input: { file_path: 'b' }, dependsOn: ['cycle-1'] },
    ]
    await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-a', calls: cycle } }), 400)
    const done = await finished(scheduleId)
    expect(done.status).toBe('completed')
    await expectStatus(api('GET', `/schedules/${scheduleId}?wait=soon`), 400)
    await expectStatus(api('GET', '/schedules/sch_missing'), 404)
    const history = await expectStatus(api('GET', '/sessions/contract-a/history'), 200)
    expect((history.body as { entries: unknown[] }).entries).toHaveLength(3)
    await expectStatus(api('GET', '/sessions/contract-missing/history'), 404)

    const uri = done.calls.find((call) => call.id === 'dump-1')?.result?.serialization?.artifactUri ?? ''
    const artifactId = decodeURIComponent(uri.split('/').pop() ?? '')
    expect(artifactId).toMatch(/^tool-result-/)
    const artifact = `/artifacts/contract-a/${artifactId}`
    await expectStatus(api('GET', artifact), 200)
    await expectStatus(api('GET', artifact, { headers: { range: 'bytes=0-9' } }), 206)
    await expectStatus(api('GET', artifact, { headers: { range: 'bytes=100000-' } }), 416)
    await expectStatus(api('GET', '/artifacts/contract-a/tool-result-missing'), 404)
  })

  it('the built-in tools: records and history with their results, displays and saved outputs', async () => {
    await expectStatus(api('POST', '/sessions', { body: { id: 'contract-tools', permissionMode: 'bypassPermissions' } }), 201)
    const calls = [
      { id: 'write-1', name: 'Write', input: { file_path: 'tools.txt', content: 'one\ntwo\n' } },
      { id: 'read-1', name: 'Read', input: { file_path: 'tools.txt' } },
      { id: 'edit-1', name: 'Edit', input: { file_path: 'tools.txt', old_string: 'two', new_string: 'three' } },
      { id: 'edit-2', name: 'Edit', input: { file_path: 'tools.txt', old_string: 'absent', new_string: 'x' } },
      { id: 'glob-1', name: 'Glob', input: { pattern: '*.txt' } },
      { id: 'grep-1', name: 'Grep', input: { pattern: 'three' } },
      { id: 'bash-1', name: 'Bash', input: { command: 'seq 1 20000' } },
      { id: 'bash-2', name: 'Bash', input: { command: 'echo failing >&2; exit 3' } },
      { id: 'todo-1', name: 'TodoWrite', input: { todos: [{ content: 'Check the contract', status: 'in_progress', activeForm: 'Checking the contract' }] } },
      { id: 'invalid-1', name: 'Read', input: { path: 'tools.txt' } },
      { id: 'submit-1', name: 'submit_result', input: { result: { checked: true } } },
      { id: 'after-stop-1', name: 'Read', input: { file_path: 'tools.txt' } },
    ]
    const accepted = await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-tools', createSession: {}, calls } }), 202)
    const done = await finished((accepted.body as ScheduleAcceptedReply).scheduleId)
    expect(done.status).toBe('stopped')
    const byId = new Map(done.calls.map((call) => [call.id, call]))
    expect(byId.get('write-1')?.result?.display).toMatchObject({ kind: 'file_diff' })
    expect(byId.get('bash-1')?.result?.display).toMatchObject({ kind: 'bash_output' })
    expect(byId.get('invalid-1')?.status).toBe('failed')
    expect(byId.get('after-stop-1')?.status).toBe('cancelled')
    await expectStatus(api('GET', '/sessions/contract-tools/history'), 200)
    await expectStatus(api('GET', '/sessions/contract-tools'), 200)
    await expectStatus(api('GET', '/sessions'), 200)
  })

  it('model-API formats: the tools, and a round trip in each format (its calls posted, its results read back) carrying exactly every modelContent', async () => {
    writeFileSync(path.join(secured.dataDir, 'formats.txt'), 'alpha\nbeta\n')
    writeFileSync(path.join(secured.dataDir, 'formats.png'), PIXEL_PNG)
    await expectStatus(api('POST', '/sessions', { body: { id: 'contract-formats', permissionMode: 'bypassPermissions' } }), 201)
    const inputs = {
      text: { file_path: 'formats.txt' },
      image: { file_path: 'formats.png' },
      big: { command: 'seq 1 30000' },
    }
    const bodies: Record<ModelFormat, (tag: string) => Record<string, unknown>> = {
      anthropic: (tag) => ({
        anthropic: [
          { type: 'thinking', thinking: 'Reading both.', signature: 'sig' },
          { type: 'text', text: 'Let me look.' },
          ...Object.entries(inputs).map(([name, input]) => ({ type: 'tool_use', id: `toolu_${tag}_${name}`, name: name === 'big' ? 'Bash' : 'Read', input, caller: { type: 'direct' } })),
        ],
      }),
      'openai-chat': (tag) => ({
        openaiChat: [
          ...Object.entries(inputs).map(([name, input]) => ({ id: `call_${tag}_${name}`, type: 'function', function: { name: name === 'big' ? 'Bash' : 'Read', arguments: JSON.stringify(input) } })),
          { id: `call_${tag}_broken`, type: 'function', function: { name: 'Read', arguments: '{"file_path": "formats' } },
        ],
      }),
      'openai-responses': (tag) => ({
        openaiResponses: [
          { type: 'reasoning', id: 'rs_1', summary: [] },
          ...Object.entries(inputs).map(([name, input]) => ({
            type: 'function_call',
            id: `fc_${name}`,
            call_id: `call_${tag}_${name}`,
            name: name === 'big' ? 'Bash' : 'Read',
            arguments: JSON.stringify(input),
          })),
          { type: 'function_call', call_id: `call_${tag}_broken`, name: 'Read', arguments: '[1, 2]' },
        ],
      }),
    }
    for (const format of MODEL_FORMATS) {
      await expectStatus(api('GET', `/tools?format=${format}`), 200)
      const tag = format.replace('-', '')
      const accepted = await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-formats', createSession: {}, ...bodies[format](tag) } }), 202)
      const scheduleId = (accepted.body as ScheduleAcceptedReply).scheduleId
      const reply = await expectStatus(api('GET', `/schedules/${scheduleId}?wait=10&format=${format}`), 200)
      const formatted = reply.body as FormattedScheduleReply
      expect(formatted).toMatchObject({ scheduleId, done: true, stopTurn: false, status: 'completed' })
      const records = await finished(scheduleId)
      const carried = expectCarriesModelContent(format, formatted, records)
      const imageCall = records.calls.find((call) => call.id.endsWith('_image'))
      expect(carried.get(imageCall?.id ?? '')?.images).toEqual([PIXEL_PNG.toString('base64')])
      expect(records.calls.find((call) => call.id.endsWith('_big'))?.result?.serialization.strategy).toBe('artifact')
      const broken = records.calls.find((call) => call.id.endsWith('_broken'))
      if (format !== 'anthropic') expect(broken).toMatchObject({ status: 'failed', name: 'Read' })
    }
    await expectStatus(api('GET', '/tools?format=claude'), 400)
    await expectStatus(api('GET', '/schedules/sch_missing?format=anthropic'), 404)
    await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-formats', createSession: {}, calls: [], anthropic: [] } }), 400)
  })

  it('a streamed schedule: calls added while open, refused once closed, for a reused id or a malformed body', async () => {
    const opened = await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-stream', createSession: {}, calls: [], open: true } }), 202)
    const scheduleId = (opened.body as ScheduleAcceptedReply).scheduleId
    const read = { id: 'stream-1', name: 'Read', input: { file_path: 'a.txt' } }
    await expectStatus(api('POST', `/schedules/${scheduleId}/calls`, { body: read }), 202)
    await expectStatus(api('POST', `/schedules/${scheduleId}/calls`, { body: read }), 409)
    await expectStatus(api('POST', `/schedules/${scheduleId}/calls`, { body: { id: 'stream-2' } }), 400)
    await expectStatus(api('POST', '/schedules/sch_missing/calls', { body: read }), 404)
    await expectStatus(api('POST', `/schedules/${scheduleId}/close`), 202)
    await expectStatus(api('POST', `/schedules/${scheduleId}/close`), 409)
    await expectStatus(api('POST', `/schedules/${scheduleId}/calls`, { body: { ...read, id: 'stream-3' } }), 409)
    await expectStatus(api('POST', '/schedules/sch_missing/close'), 404)
    expect((await finished(scheduleId)).status).toBe('completed')
  })

  it('approvals: listed, answered once, the same answer accepted again and a different one refused; project grants listed and removed', async () => {
    await expectStatus(api('POST', '/sessions', { body: { id: 'contract-ask', permissionMode: 'default' } }), 201)
    const writes = [
      { id: 'write-1', name: 'Write', input: { file_path: 'asked.txt', content: 'allowed\n' } },
      { id: 'write-2', name: 'Write', input: { file_path: 'refused.txt', content: 'denied\n' } },
    ]
    const accepted = await expectStatus(api('POST', '/schedules', { body: { sessionId: 'contract-ask', createSession: {}, calls: writes } }), 202)
    const request = await pendingRequest('contract-ask', 'write-1')
    await expectStatus(api('GET', '/permissions'), 200)
    await expectStatus(api('GET', '/permissions?status=decided'), 400)
    await expectStatus(api('POST', `/permissions/${request.id}`, { body: { decision: 'perhaps' } }), 400)
    await expectStatus(api('POST', `/permissions/${request.id}`, { body: { decision: 'allow', scope: 'project' } }), 200)
    await expectStatus(api('POST', `/permissions/${request.id}`, { body: { decision: 'allow', scope: 'project' } }), 409)
    await expectStatus(api('POST', `/permissions/${request.id}`, { body: { decision: 'deny' } }), 409)
    await expectStatus(api('POST', '/permissions/perm_missing', { body: { decision: 'allow' } }), 404)
    const second = await pendingRequest('contract-ask', 'write-2')
    await expectStatus(api('POST', `/permissions/${second.id}`, { body: { decision: 'deny', message: 'not that one' } }), 200)
    const done = await finished((accepted.body as ScheduleAcceptedReply).scheduleId)
    expect(done.calls.map((call) => call.status)).toEqual(['succeeded', 'denied'])
    await expectStatus(api('GET', '/sessions/contract-ask/history'), 200)

    const rules = await expectStatus(api('GET', '/permissions/rules'), 200)
    const [rule] = (rules.body as { rules: ProjectRule[] }).rules
    expect(rule).toBeDefined()
    await expectStatus(api('DELETE', `/permissions/rules/${rule?.id}`), 204)
    await expectStatus(api('DELETE', `/permissions/rules/${rule?.id}`), 404)
  })

  it('the event stream: opened with the header token or ?access_token=, refused past the last event, for an unknown session, a malformed resume point or an Accept without text/event-stream', async () => {
    await expectStatus(api('GET', '/sessions/contract-a/events'), 200)
    await expectStatus(anonymous('GET', `/sessions/contract-a/events?access_token=${TOKEN}`), 200)
    await expectStatus(api('GET', '/sessions/contract-a/events?after=999999'), 400)
    await expectStatus(api('GET', '/sessions/contract-a/events?after=soon'), 400)
    await expectStatus(api('GET', '/sessions/contract-a/events', { headers: { 'last-event-id': 'soon' } }), 400)
    await expectStatus(api('GET', '/sessions/contract-missing/events'), 404)
    await expectStatus(api('GET', '/sessions/contract-a/events', { headers: { accept: 'application/json' } }), 406)
  })

  it('tools: listed, an HTTP tool added once and removed once; a built-in one cannot be removed', async () => {
    await expectStatus(api('GET', '/tools'), 200)
    const tool = { name: 'ticket_lookup', description: 'Looks up a ticket', inputSchema: { type: 'object' }, readOnly: true, url: 'http://127.0.0.1:9/ticket' }
    await expectStatus(api('POST', '/tools', { body: tool }), 201)
    await expectStatus(api('POST', '/tools', { body: tool }), 409)
    await expectStatus(api('POST', '/tools', { body: { ...tool, name: 'ticket lookup' } }), 400)
    await expectStatus(api('POST', '/tools', { body: { ...tool, name: 'mcp__tickets__lookup' } }), 400)
    await expectStatus(api('DELETE', '/tools/ticket_lookup'), 204)
    await expectStatus(api('DELETE', '/tools/ticket_lookup'), 404)
    await expectStatus(api('DELETE', '/tools/Read'), 409)
  })

  it('keys: minted once with its secret, listed, refused beyond the minting key, revoked once', async () => {
    const minted = await expectStatus(api('POST', '/keys', { body: { name: 'contract', role: 'observer' } }), 201)
    const { key, secret } = minted.body as { key: { id: string }; secret: string }
    await expectStatus(api('POST', '/keys', { body: { name: 'contract', role: 'observer', scopes: ['sessions:read'] } }), 400)
    await expectStatus(api('POST', '/keys', { body: { name: 'wider', role: 'owner' }, headers: { authorization: `Bearer ${secret}` } }), 403)
    await expectStatus(api('GET', '/keys'), 200)
    await expectStatus(api('DELETE', `/keys/${key.id}`), 204)
    await expectStatus(api('DELETE', '/keys/key_none'), 404)
  })

  it('audit: the log read a page at a time, a bad filter refused', async () => {
    await expectStatus(api('GET', '/audit?limit=5'), 200)
    await expectStatus(api('GET', '/audit?kind=nothing'), 400)
  })

  it('links: minted for a session and a purpose, refused for an unknown session or purpose, revoked once', async () => {
    await expectStatus(api('POST', '/sessions', { body: { id: 'contract-linked' } }), 201)
    const minted = await expectStatus(api('POST', '/sessions/contract-linked/links', { body: { purpose: 'watch' } }), 201)
    const { link } = minted.body as { link: { id: string } }
    await expectStatus(api('POST', '/sessions/contract-linked/links', { body: { purpose: 'forever' } }), 400)
    await expectStatus(api('POST', '/sessions/contract-nowhere/links', { body: { purpose: 'watch' } }), 404)
    await expectStatus(api('DELETE', `/sessions/contract-linked/links/${link.id}`), 204)
    await expectStatus(api('DELETE', `/sessions/contract-linked/links/${link.id}`), 404)
  })

  it('new work is refused with 507 API_ERR_STORAGE_FULL, naming the data directory, while it has no room; reads still answer', async () => {
    const tool = { name: 'ticket_lookup', description: 'Looks up a ticket', inputSchema: { type: 'object' }, url: 'http://127.0.0.1:9/ticket' }
    const refused = [
      full('POST', '/sessions', { body: { id: 'full-a' } }),
      full('POST', '/schedules', { body: { sessionId: 'full-a', createSession: {}, calls: [{ id: 'full-1', name: 'Read', input: { file_path: 'a.txt' } }] } }),
      full('POST', '/schedules/sch_any/calls', { body: { id: 'full-2', name: 'Read', input: { file_path: 'a.txt' } } }),
      full('POST', '/permissions/perm_any', { body: { decision: 'allow' } }),
      full('POST', '/tools', { body: tool }),
      full('POST', '/keys', { body: { name: 'full', role: 'observer' } }),
      full('POST', '/sessions/full-a/links', { body: { purpose: 'watch' } }),
      full('PATCH', '/sessions/full-a', { body: { label: 'Full' } }),
    ]
    for (const reply of await Promise.all(refused)) {
      expect(reply.status).toBe(507)
      expect(reply.body).toEqual({
        error: {
          code: 'API_ERR_STORAGE_FULL',
          message: `No space left in the data directory ${noSpace.dataDir}: new work is refused until space is freed there`,
          details: { dataDir: noSpace.dataDir },
        },
      })
    }
    await expectStatus(full('GET', '/sessions'), 200)
    expect(await rowCounts(noSpace)).toMatchObject({ sessions: 0, schedules: 0, tool_calls: 0, client_http_tools: 0, api_keys: 0 })
  })

  it('a busy session: more schedules than may wait refused, deleting it refused until it is aborted, then it is gone', async () => {
    const sleep = (id: string): RequestOptions => ({ body: { sessionId: 'contract-busy', createSession: {}, calls: [{ id, name: 'Sleep', input: { ms: 60_000 } }] } })
    const accepted = await expectStatus(api('POST', '/schedules', sleep('sleep-1')), 202)
    // The first runs; one more may wait (the bound is 1 on this server); the next is refused.
    const waiting = await expectStatus(api('POST', '/schedules', sleep('sleep-2')), 202)
    await expectStatus(api('POST', '/schedules', sleep('sleep-3')), 429)
    await expectStatus(api('DELETE', '/sessions/contract-busy'), 409)
    await expectStatus(api('POST', '/sessions/contract-busy/abort'), 200)
    expect((await finished((accepted.body as ScheduleAcceptedReply).scheduleId)).status).toBe('cancelled')
    expect((await finished((waiting.body as ScheduleAcceptedReply).scheduleId)).status).toBe('cancelled')
    await expectStatus(api('DELETE', '/sessions/contract-busy'), 204)
    await expectStatus(api('DELETE', '/sessions/contract-busy'), 404)
    await expectStatus(api('POST', '/sessions/contract-busy/abort'), 404)
  })

  it('every operation with a path parameter answers 400 to one over its length or not decodable', async () => {
    for (const operation of operationsWith((candidate) => candidate.parameterPlaces.has('path'))) {
      for (const value of [LONG_ID, '%E0%A4%A']) {
        const reply = await api(operation.method, someUrlOf(operation.route, value))
        expect(reply.status, `${operation.method} ${operation.route} with ${value.slice(0, 20)}`).toBe(400)
      }
    }
  })

  it('every operation with a query string answers 400 to a parameter it does not know', async () => {
    for (const operation of operationsWith((candidate) => candidate.parameterPlaces.has('query'))) {
      const reply = await api(operation.method, `${someUrlOf(operation.route, 'contract-a')}?unknown=1`)
      expect(reply.status, `${operation.method} ${operation.route}`).toBe(400)
    }
  })

  it('every POST, PATCH and DELETE answers 400 to a body that is not JSON', async () => {
    for (const operation of operationsWith((candidate) => candidate.method !== 'GET')) {
      const reply = await api(operation.method, someUrlOf(operation.route), { rawBody: '{"id":' })
      expect(reply.status, `${operation.method} ${operation.route}`).toBe(400)
    }
  })

  it('every POST, PATCH and DELETE answers 413 to a body over the limit and 415 to a body that is not JSON', async () => {
    const oversized = 'x'.repeat(BODY_LIMIT_BYTES + 1)
    for (const operation of operationsWith((candidate) => candidate.method !== 'GET')) {
      const tooLarge = await api(operation.method, someUrlOf(operation.route), { rawBody: oversized })
      expect(tooLarge.status, `${operation.method} ${operation.route}`).toBe(413)
      const form = await api(operation.method, someUrlOf(operation.route), { rawBody: 'id=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      expect(form.status, `${operation.method} ${operation.route}`).toBe(415)
      // What a page on another origin sends without a preflight: fetch's default for a string body.
      const text = await api(operation.method, someUrlOf(operation.route), { rawBody: '{}', headers: { 'content-type': 'text/plain;charset=UTF-8' } })
      expect(text.status, `${operation.method} ${operation.route}`).toBe(415)
    }
  })

  it('every operation but the open ones answers 401 without the token', async () => {
    // Without TOOLEXEC_JWT_ISSUER no identity provider issues tokens for the server: it has no protected resource metadata.
    const open: Readonly<Record<string, number>> = { health: 200, getProtectedResourceMetadata: 404 }
    for (const operation of contract.operations) {
      const reply = await anonymous(operation.method, someUrlOf(operation.route))
      expect(reply.status, `${operation.method} ${operation.route}`).toBe(open[operation.operationId] ?? 401)
    }
  })

  it('GET /me answers who the token is', async () => {
    const reply = await expectStatus(api('GET', '/me'), 200)
    expect(reply.body).toMatchObject({ id: 'admin', kind: 'admin' })
  })

  it('the protected resource metadata answers without a token when identity-provider tokens are accepted', async () => {
    const reply = await expectStatus(anonymousWithIdentityProvider('GET', '/.well-known/oauth-protected-resource'), 200)
    expect(reply.body).toMatchObject({ resource: 'https://toolexec.example.com', authorization_servers: ['https://idp.example.com'] })
  })

  it('every operation answers 403 to a Host that is no loopback name when the server runs without a token', async () => {
    for (const operation of contract.operations) {
      const reply = await rebound(operation.method, someUrlOf(operation.route))
      expect(reply.status, `${operation.method} ${operation.route}`).toBe(403)
    }
  })

  it('every operation answers 403 to a page on another origin when the server runs without a token', async () => {
    for (const operation of contract.operations) {
      const reply = await crossSite(operation.method, someUrlOf(operation.route))
      expect([reply.status, (reply.body as ErrorReply | undefined)?.error.code], `${operation.method} ${operation.route}`).toEqual([403, 'API_ERR_ORIGIN_NOT_ALLOWED'])
    }
  })

  it('covered every operation of the document, through every status it documents', () => {
    const covered = contract.covered()
    const operationIds = new Set(covered.map((entry) => entry.split(' ')[0]))
    expect([...operationIds].sort()).toEqual(contract.operations.map((operation) => operation.operationId).sort())
    expect(covered.sort()).toEqual(contract.documented().sort())
  })
})
