import { describe, expect, it } from 'vitest'
import { LOCAL } from '../../src/contracts/access.js'
import type { ErrorReply, PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { useHttpSuite } from '../support/http-suite.js'
import type { TestServer } from '../support/server.js'
import { dataOf } from '../support/sse-client.js'

let s: TestServer
const suite = useHttpSuite((server) => {
  s = server
})
const fresh = suite.fresh

const edit = (id: string, file = 'notes.txt'): unknown => ({ id, name: 'Edit', input: { file_path: file } })

async function accept(sessionId: string, calls: unknown[]): Promise<ScheduleAcceptedReply> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls })
  expect(reply.status).toBe(202)
  return reply.body
}

async function finished(scheduleId: string): Promise<ScheduleReply> {
  const reply = await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)
  expect(['completed', 'stopped', 'cancelled']).toContain(reply.body.status)
  return reply.body
}

async function pending(sessionId?: string): Promise<PermissionRequestRecord[]> {
  const query = sessionId === undefined ? '?status=pending' : `?sessionId=${sessionId}&status=pending`
  const reply = await s.json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions${query}`)
  expect(reply.status).toBe(200)
  return reply.body.requests
}

/** Posts one Edit and waits until its approval request is listed as pending. */
async function pendingEdit(sessionId = fresh('perm'), callId = 'e1'): Promise<{ sessionId: string; scheduleId: string; request: PermissionRequestRecord }> {
  const { scheduleId } = await accept(sessionId, [edit(callId)])
  const deadline = Date.now() + 5_000
  for (;;) {
    const [request] = await pending(sessionId)
    if (request !== undefined) return { sessionId, scheduleId, request }
    if (Date.now() > deadline) throw new Error(`no pending request in ${sessionId}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function answer(permissionId: string, body: Record<string, unknown>): Promise<{ status: number; body: PermissionRequestRecord & ErrorReply }> {
  return s.json('POST', `/permissions/${permissionId}`, body)
}

describe('POST /permissions/:id', () => {
  it('replies 404 in the error format for an unknown request', async () => {
    const reply = await answer('perm_unknown', { decision: 'allow' })
    expect(reply.status).toBe(404)
    expect(reply.body.error).toEqual({ code: 'API_ERR_PERMISSION_NOT_FOUND', message: 'Permission request perm_unknown not found' })
  })

  it.each<[string, unknown]>([
    ['an unknown decision', { decision: 'maybe' }],
    ['no decision', { scope: 'once' }],
    ['an unknown scope', { decision: 'allow', scope: 'forever' }],
    ['an unknown field', { decision: 'allow', remember: true }],
  ])('replies 400 for %s and leaves the request pending', async (_case, body) => {
    const { request } = await pendingEdit()
    const reply = await s.json<ErrorReply>('POST', `/permissions/${request.id}`, body)
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
    expect((await pending(request.sessionId)).map((r) => r.id)).toEqual([request.id])
    await answer(request.id, { decision: 'deny' })
  })

  it('R16 allow replies 200 with the decided request and the call runs', async () => {
    const { scheduleId, request } = await pendingEdit()
    expect(request).toMatchObject({ callId: 'e1', toolName: 'Edit', input: { file_path: 'notes.txt' }, status: 'pending', riskLevel: 'medium', reason: 'Tool Edit requires approval' })
    expect(request.id).toMatch(/^perm_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    const reply = await answer(request.id, { decision: 'allow' })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ id: request.id, status: 'allow', decidedBy: 'client' })
    const done = await finished(scheduleId)
    expect(done.calls[0]).toMatchObject({ status: 'succeeded', modelContent: 'edited notes.txt' })
    expect(done.calls[0]?.result?.permission).toBe('approved')
  })

  it('R16 a decision is valid once: the same decision again and a different one reply 409 saying how and by whom', async () => {
    const { scheduleId, request } = await pendingEdit()
    expect((await answer(request.id, { decision: 'allow' })).status).toBe(200)
    const decided = {
      code: 'API_ERR_PERMISSION_DECIDED',
      message: `Permission request ${request.id} was already decided: allow by ${LOCAL.name}; a decision is valid once`,
      details: { decision: 'allow', decidedBy: 'client', deciderId: LOCAL.id, deciderName: LOCAL.name },
    }
    const again = await answer(request.id, { decision: 'allow' })
    expect([again.status, again.body.error]).toEqual([409, decided])
    await finished(scheduleId)
    for (const body of [{ decision: 'allow', message: 'still yes' }, { decision: 'deny' }]) {
      const replay = await answer(request.id, body)
      expect([replay.status, replay.body.error]).toEqual([409, decided])
    }
  })

  it.each([
    ['with a message, the message itself', 'Use notes.md instead', 'Use notes.md instead'],
    ['without a message, the default text (A4)', undefined, 'Permission denied for Edit'],
  ])('R26 a deny reaches the model as modelContent: %s', async (_case, message, expected) => {
    const { scheduleId, request } = await pendingEdit()
    const reply = await answer(request.id, message === undefined ? { decision: 'deny' } : { decision: 'deny', message })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ status: 'deny', decidedBy: 'client' })
    const done = await finished(scheduleId)
    expect(done.calls[0]).toMatchObject({ status: 'denied', modelContent: expected })
    expect(done.calls[0]?.result).toMatchObject({ success: false, isError: true, permission: 'denied' })
  })

  it('scope session: a later identical request in that session runs without asking, another session still asks', async () => {
    const { sessionId, scheduleId, request } = await pendingEdit()
    const stream = await suite.watch(s, sessionId)
    expect((await answer(request.id, { decision: 'allow', scope: 'session' })).status).toBe(200)
    await finished(scheduleId)
    const later = await accept(sessionId, [edit('e2'), edit('e3')])
    const done = await finished(later.scheduleId)
    expect(done.calls.map((call) => [call.id, call.status, call.modelContent])).toEqual([
      ['e2', 'succeeded', 'edited notes.txt'],
      ['e3', 'succeeded', 'edited notes.txt'],
    ])
    await stream.waitFor((frame) => frame.event === 'ScheduleCompleted' && dataOf(frame).scheduleId === later.scheduleId)
    expect(stream.frames.filter((frame) => frame.event === 'PermissionRequested').map((frame) => dataOf(frame).callId)).toEqual(['e1'])
    const elsewhere = await pendingEdit(fresh('not-granted'))
    expect(elsewhere.request.status).toBe('pending')
    await answer(elsewhere.request.id, { decision: 'deny' })
  })

  it('R16 an answer naming another session is a 404 and cannot affect the call; its own session can still answer', async () => {
    const mine = await pendingEdit(fresh('mine'))
    const theirs = await pendingEdit(fresh('theirs'))
    const wrong = await answer(mine.request.id, { decision: 'deny', sessionId: theirs.sessionId })
    expect(wrong.status).toBe(404)
    expect(wrong.body.error.code).toBe('API_ERR_PERMISSION_NOT_FOUND')
    expect((await pending(mine.sessionId)).map((r) => [r.id, r.status])).toEqual([[mine.request.id, 'pending']])
    const right = await answer(mine.request.id, { decision: 'allow', sessionId: mine.sessionId })
    expect(right.status).toBe(200)
    expect((await finished(mine.scheduleId)).calls[0]?.status).toBe('succeeded')
    expect((await pending(theirs.sessionId)).map((r) => r.id)).toEqual([theirs.request.id])
    await answer(theirs.request.id, { decision: 'deny' })
  })

  it.each([
    ['allow', 'deny'],
    ['deny', 'allow'],
    ['allow', 'allow'],
    ['deny', 'deny'],
  ] as const)('R16 two racing answers (%s, %s) give one 200 and one 409, even when they agree', async (first, second) => {
    for (let round = 0; round < 3; round++) {
      const { scheduleId, request } = await pendingEdit()
      const replies = await Promise.all([answer(request.id, { decision: first }), answer(request.id, { decision: second })])
      const statuses = replies.map((reply) => reply.status).sort()
      const winner = replies.find((reply) => reply.status === 200)?.body.status
      expect(statuses).toEqual([200, 409])
      const loser = replies.find((reply) => reply.status === 409)?.body
      expect(loser?.error.details).toMatchObject({ decision: winner, decidedBy: 'client' })
      const done = await finished(scheduleId)
      expect(done.calls[0]?.status).toBe(winner === 'allow' ? 'succeeded' : 'denied')
    }
  })
})

describe('GET /permissions', () => {
  it('lists pending requests across sessions, or of one session, and drops them once answered', async () => {
    const a = await pendingEdit(fresh('list-a'))
    const b = await pendingEdit(fresh('list-b'))
    const all = (await pending()).map((request) => request.id)
    expect(all).toEqual(expect.arrayContaining([a.request.id, b.request.id]))
    expect((await pending(a.sessionId)).map((request) => request.id)).toEqual([a.request.id])
    await answer(a.request.id, { decision: 'allow' })
    await finished(a.scheduleId)
    expect(await pending(a.sessionId)).toEqual([])
    expect((await pending()).map((request) => request.id)).not.toContain(a.request.id)
    expect((await pending()).map((request) => request.id)).toContain(b.request.id)
    await answer(b.request.id, { decision: 'deny' })
  })

  it.each(['?status=allow', '?status=', '?sessionId=', '?colour=red'])('replies 400 for %s', async (query) => {
    const reply = await s.json<ErrorReply>('GET', `/permissions${query}`)
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
  })
})
