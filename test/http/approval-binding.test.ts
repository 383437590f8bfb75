/**
 * Approvals bound to what they approve and to who decides: a request carries the hash of its
 * exact input and a decision naming another is refused; a decision is valid once; a request
 * closed by an abort or a timeout takes none; the decider's key is recorded; under four eyes
 * the key that scheduled a call cannot decide it.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedKey } from '../../src/contracts/api-keys.js'
import type { PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { bearer, keyedJson, type KeyedReply } from '../support/keyed-requests.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { configFile } from '../support/hook-scripts/session-api.js'

const TOKEN = 'admin-token-approvals-4e1c'
const ADMIN: Record<string, string> = { authorization: `Bearer ${TOKEN}` }
let server: TestServer
let counter = 0
const fresh = (prefix: string): string => `${prefix}-${++counter}`

const json = keyedJson(() => server, ADMIN)

async function mint(name: string, scopes: string[]): Promise<{ id: string; headers: Record<string, string> }> {
  const reply = await json<CreatedKey>('POST', '/keys', { name, scopes })
  expect(reply.status).toBe(201)
  return { id: reply.body.key.id, headers: bearer(reply.body.secret) }
}

const SCHEDULER_SCOPES = ['sessions:create', 'sessions:read', 'schedules:write', 'approvals:decide']

/** An Edit that asks for approval in a new session, scheduled with `headers`; waits until its request is pending. */
async function pendingEdit(
  session: Record<string, unknown> = {},
  headers: Record<string, string> = ADMIN,
  input: Record<string, unknown> = { file_path: 'notes.txt' },
): Promise<{ sessionId: string; scheduleId: string; request: PermissionRequestRecord }> {
  const sessionId = fresh('approve')
  const created = await json('POST', '/sessions', { id: sessionId, permissionMode: 'default', ...session })
  expect(created.status).toBe(201)
  const accepted = await json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, calls: [{ id: 'e1', name: 'Edit', input }] }, headers)
  expect(accepted.status).toBe(202)
  const deadline = Date.now() + 5_000
  for (;;) {
    const [request] = (await json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}`)).body.requests
    if (request !== undefined) return { sessionId, scheduleId: accepted.body.scheduleId, request }
    if (Date.now() > deadline) throw new Error(`no pending request in ${sessionId}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

async function finished(scheduleId: string): Promise<ScheduleReply> {
  return (await json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)).body
}

async function eventsOf(sessionId: string, type: string): Promise<Record<string, unknown>[]> {
  const events = await server.runtime.store.events.after(sessionId, 0, 1000)
  return events.filter((event) => event.type === type).map((event) => JSON.parse(event.data) as Record<string, unknown>)
}

const decide = (id: string, body: Record<string, unknown>, headers: Record<string, string> = ADMIN): Promise<KeyedReply<PermissionRequestRecord>> =>
  json<PermissionRequestRecord>('POST', `/permissions/${id}`, body, headers)

beforeAll(async () => {
  // Edits under guarded/ are under four eyes in every session.
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_CONFIG: await configFile({ permissions: { fourEyes: ['Edit(guarded/**)'] } }) } })
})

afterAll(async () => {
  await server.close()
})

describe('a decision bound to the input', () => {
  it('a request shows the SHA-256 of its input in canonical JSON, in GET /permissions and in its PermissionRequested event', async () => {
    // Keys in an order no canonical form keeps: the hash is of the sorted form.
    const { sessionId, request } = await pendingEdit({}, ADMIN, { old_string: 'a', file_path: 'notes.txt', new_string: 'b' })
    const canonical = '{"file_path":"notes.txt","new_string":"b","old_string":"a"}'
    const expected = createHash('sha256').update(canonical).digest('hex')
    expect(request.inputHash).toBe(expected)
    const [requested] = await eventsOf(sessionId, 'PermissionRequested')
    expect(requested).toMatchObject({ permissionId: request.id, inputHash: expected })
    await decide(request.id, { decision: 'deny' })
  })

  it('a decision naming another input is a 409 and decides nothing; with the right hash it decides', async () => {
    const { scheduleId, request } = await pendingEdit()
    const other = createHash('sha256').update('{"file_path":"other.txt"}').digest('hex')
    const refused = await decide(request.id, { decision: 'allow', inputHash: other })
    expect([refused.status, refused.body.error?.code]).toEqual([409, 'API_ERR_PERMISSION_INPUT_CHANGED'])
    expect(refused.body.error?.details).toEqual({ inputHash: request.inputHash })
    expect((await json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${request.sessionId}`)).body.requests).toHaveLength(1)
    const allowed = await decide(request.id, { decision: 'allow', inputHash: request.inputHash })
    expect([allowed.status, allowed.body.status]).toEqual([200, 'allow'])
    expect((await finished(scheduleId)).calls[0]?.status).toBe('succeeded')
  })

  it('a replayed decision is a 409, the same decision as the first included', async () => {
    const { request } = await pendingEdit()
    expect((await decide(request.id, { decision: 'allow', inputHash: request.inputHash })).status).toBe(200)
    for (const decision of ['allow', 'deny']) {
      const replay = await decide(request.id, { decision, inputHash: request.inputHash })
      expect([replay.status, replay.body.error?.code]).toEqual([409, 'API_ERR_PERMISSION_DECIDED'])
    }
  })

  it('a decision on a request whose call was aborted is a 409 API_ERR_PERMISSION_CLOSED, not a 200', async () => {
    const { sessionId, scheduleId, request } = await pendingEdit()
    expect((await json('POST', `/sessions/${sessionId}/abort`, {})).status).toBe(200)
    await finished(scheduleId)
    for (const decision of ['deny', 'allow']) {
      const late = await decide(request.id, { decision })
      expect([late.status, late.body.error?.code, late.body.error?.message]).toEqual([
        409,
        'API_ERR_PERMISSION_CLOSED',
        `Permission request ${request.id} is closed (its call was aborted): nobody decides it any more`,
      ])
    }
  })

  it('a decision on a request that timed out is a 409 API_ERR_PERMISSION_CLOSED', async () => {
    const { scheduleId, request } = await pendingEdit({ permissionTimeoutMs: 200 })
    expect((await finished(scheduleId)).calls[0]?.status).toBe('denied')
    const late = await decide(request.id, { decision: 'allow' })
    expect([late.status, late.body.error?.code]).toEqual([409, 'API_ERR_PERMISSION_CLOSED'])
    expect(late.body.error?.message).toContain('permissionTimeoutMs')
  })

  it('records who decided: the key id and name in the reply, on the record and in the PermissionResolved event', async () => {
    const reviewer = await mint('reviewer', ['sessions:read', 'approvals:decide'])
    const { sessionId, scheduleId, request } = await pendingEdit()
    const reply = await decide(request.id, { decision: 'allow' }, reviewer.headers)
    expect(reply.body).toMatchObject({ status: 'allow', decidedBy: 'client', deciderId: reviewer.id, deciderName: 'reviewer' })
    await finished(scheduleId)
    expect(await server.runtime.store.approvals.get(request.id)).toMatchObject({ decidedBy: 'client', deciderId: reviewer.id, deciderName: 'reviewer' })
    expect(await eventsOf(sessionId, 'PermissionResolved')).toMatchObject([{ decidedBy: 'client', deciderId: reviewer.id, deciderName: 'reviewer' }])
  })
})

describe('four eyes', () => {
  it('the key that scheduled the call cannot decide it (403 API_ERR_FOUR_EYES); another key can', async () => {
    const scheduler = await mint('agent-a', SCHEDULER_SCOPES)
    const other = await mint('agent-b', SCHEDULER_SCOPES)
    const { sessionId, scheduleId, request } = await pendingEdit({ fourEyes: true }, scheduler.headers)
    expect((await json<Session>('GET', `/sessions/${sessionId}`)).body.fourEyes).toBe(true)
    const refused = await decide(request.id, { decision: 'allow' }, scheduler.headers)
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'API_ERR_FOUR_EYES'])
    expect(refused.body.error?.message).toBe(`Session ${sessionId} is under four eyes: ${scheduler.id} (agent-a) scheduled call e1, so another key must decide its approval`)
    const allowed = await decide(request.id, { decision: 'allow' }, other.headers)
    expect([allowed.status, allowed.body.deciderId]).toEqual([200, other.id])
    expect((await finished(scheduleId)).calls[0]?.status).toBe('succeeded')
  })

  it('the administrator who scheduled is refused too; a session without four eyes lets the scheduler decide', async () => {
    const { request } = await pendingEdit({ fourEyes: true })
    expect((await decide(request.id, { decision: 'allow' })).status).toBe(403)
    await json('POST', `/sessions/${request.sessionId}/abort`, {})
    const scheduler = await mint('agent-solo', SCHEDULER_SCOPES)
    const plain = await pendingEdit({}, scheduler.headers)
    expect((await json<Session>('GET', `/sessions/${plain.sessionId}`)).body.fourEyes).toBeUndefined()
    expect((await decide(plain.request.id, { decision: 'allow' }, scheduler.headers)).status).toBe(200)
  })

  it("a server's fourEyes rule puts the calls it matches under four eyes in a session without them, naming the rule", async () => {
    const scheduler = await mint('agent-rule', SCHEDULER_SCOPES)
    const other = await mint('agent-other', SCHEDULER_SCOPES)
    const guarded = await pendingEdit({}, scheduler.headers, { file_path: 'guarded/plan.md' })
    const refused = await decide(guarded.request.id, { decision: 'allow' }, scheduler.headers)
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'API_ERR_FOUR_EYES'])
    expect(refused.body.error?.message).toBe(`The call (rule Edit(guarded/**)) is under four eyes: ${scheduler.id} (agent-rule) scheduled call e1, so another key must decide its approval`)
    expect((await decide(guarded.request.id, { decision: 'allow' }, other.headers)).status).toBe(200)
    expect((await finished(guarded.scheduleId)).calls[0]?.status).toBe('succeeded')
    const elsewhere = await pendingEdit({}, scheduler.headers, { file_path: 'open/plan.md' })
    expect((await decide(elsewhere.request.id, { decision: 'allow' }, scheduler.headers)).status).toBe(200)
  })
})
