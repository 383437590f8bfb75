import { describe, expect, it } from 'vitest'
import type { ErrorReply, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { useHttpSuite } from '../support/http-suite.js'
import type { TestServer } from '../support/server.js'
import { dataOf, type SseClient, type SseFrame } from '../support/sse-client.js'

let s: TestServer
const suite = useHttpSuite((server) => {
  s = server
})
const fresh = suite.fresh

async function watch(sessionId: string): Promise<SseClient> {
  await s.json('POST', '/sessions', { id: sessionId })
  return suite.watch(s, sessionId)
}

async function open(sessionId: string): Promise<ScheduleAcceptedReply> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [], open: true })
  expect(reply.status).toBe(202)
  return reply.body
}

async function add(scheduleId: string, call: Record<string, unknown>): Promise<ScheduleAcceptedReply> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', `/schedules/${scheduleId}/calls`, call)
  expect(reply.status).toBe(202)
  return reply.body
}

async function close(scheduleId: string): Promise<ScheduleAcceptedReply> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', `/schedules/${scheduleId}/close`)
  expect(reply.status).toBe(202)
  return reply.body
}

async function finished(scheduleId: string): Promise<ScheduleReply> {
  const reply = await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)
  expect(['completed', 'stopped', 'cancelled']).toContain(reply.body.status)
  return reply.body
}

const read = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ id, name: 'Read', input: { file_path: `${id}.txt` }, ...extra })
const edit = (id: string): Record<string, unknown> => ({ id, name: 'Edit', input: { file_path: `${id}.txt` } })
const startedCall = (callId: string) => (frame: SseFrame) => frame.event === 'ToolCallStarted' && dataOf(frame).callId === callId

/** Approves every Edit as soon as it asks. */
function approveEdits(stream: SseClient, until: Promise<unknown>): Promise<void> {
  const answered = new Set<string>()
  let done = false
  void until.finally(() => (done = true))
  return (async () => {
    while (!done) {
      for (const frame of stream.frames) {
        const data = dataOf<{ permissionId?: string }>(frame)
        if (frame.event !== 'PermissionRequested' || data.permissionId === undefined || answered.has(data.permissionId)) continue
        answered.add(data.permissionId)
        await s.json('POST', `/permissions/${data.permissionId}`, { decision: 'allow' })
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
}

describe('streaming early dispatch over HTTP', () => {
  it('R11 opens a schedule that runs nothing until calls arrive', async () => {
    const sessionId = fresh('open')
    const reply = await open(sessionId)
    expect(reply).toMatchObject({ sessionId, status: 'open', groups: [], calls: [] })
    expect((await s.json<ScheduleReply>('GET', `/schedules/${reply.scheduleId}`)).body.status).toBe('open')
    await close(reply.scheduleId)
    expect((await finished(reply.scheduleId)).status).toBe('completed')
  })

  it('R11 starts an eligible Read at once, holds an Edit, and at close runs the rest grouped exactly as R5 would', async () => {
    const sessionId = fresh('stream')
    const stream = await watch(sessionId)
    const { scheduleId } = await open(sessionId)

    const first = await add(scheduleId, read('r1'))
    expect(first.calls).toEqual([expect.objectContaining({ id: 'r1', name: 'Read', dispatched: true })])
    await stream.waitFor(startedCall('r1'))
    const heldEdit = await add(scheduleId, edit('e1'))
    expect(heldEdit.calls.map((call) => [call.id, call.dispatched])).toEqual([
      ['r1', true],
      ['e1', false],
    ])
    await add(scheduleId, read('d1', { dependsOn: ['r1'] }))
    await add(scheduleId, read('d2', { dependsOn: ['r1'] }))
    const last = await add(scheduleId, edit('e2'))
    expect(last.calls.map((call) => [call.id, call.dispatched])).toEqual([
      ['r1', true],
      ['e1', false],
      ['d1', false],
      ['d2', false],
      ['e2', false],
    ])
    await new Promise((resolve) => setTimeout(resolve, 100))
    const beforeClose = stream.frames.filter((frame) => frame.event === 'ToolCallStarted').map((frame) => dataOf(frame).callId)
    expect(beforeClose).toEqual(['r1'])

    const closed = await close(scheduleId)
    const asR5 = await s.json<ScheduleAcceptedReply>('POST', '/schedules', {
      sessionId: fresh('reference'),
      createSession: {},
      calls: [edit('e1'), read('d1'), read('d2'), edit('e2')],
    })
    expect(closed.status).toBe('queued')
    expect(closed.groups).toEqual(asR5.body.groups)
    expect(closed.groups).toEqual([['e1'], ['d1', 'd2'], ['e2']])
    await s.json('POST', `/sessions/${asR5.body.sessionId}/abort`)

    const done = finished(scheduleId)
    await approveEdits(stream, done)
    const record = await done
    expect(record.status).toBe('completed')
    expect(record.groups).toEqual(closed.groups)
    expect(record.calls.map((call) => [call.id, call.status, call.modelContent])).toEqual([
      ['r1', 'succeeded', 'contents of r1.txt'],
      ['e1', 'succeeded', 'edited e1.txt'],
      ['d1', 'succeeded', 'contents of d1.txt'],
      ['d2', 'succeeded', 'contents of d2.txt'],
      ['e2', 'succeeded', 'edited e2.txt'],
    ])
    await stream.waitFor((frame) => frame.event === 'ScheduleCompleted')
    const batches = stream.frames.filter((frame) => frame.event === 'BatchStarted').map((frame) => dataOf(frame).callIds)
    expect(batches).toEqual(closed.groups)
    expect(stream.frames.filter(startedCall('r1'))).toHaveLength(1)
    expect(stream.frames.filter((frame) => frame.event === 'ToolCallResult')).toHaveLength(5)
  })

  it('R11 R5 holds an eligible Read streamed after a held Edit, so that it runs after the Edit as R5 orders them', async () => {
    const sessionId = fresh('after-held')
    const stream = await watch(sessionId)
    const { scheduleId } = await open(sessionId)
    await add(scheduleId, read('r1'))
    await add(scheduleId, edit('e1'))
    const late = await add(scheduleId, read('r2'))
    expect(late.calls.map((call) => [call.id, call.dispatched])).toEqual([
      ['r1', true],
      ['e1', false],
      ['r2', false],
    ])
    const closed = await close(scheduleId)
    expect(closed.groups).toEqual([['e1'], ['r2']])
    const done = finished(scheduleId)
    await approveEdits(stream, done)
    expect((await done).calls.map((call) => call.status)).toEqual(['succeeded', 'succeeded', 'succeeded'])
    const order = stream.frames
      .filter((frame) => frame.event === 'ToolCallStarted' || frame.event === 'ToolCallResult')
      .map((frame) => `${frame.event === 'ToolCallStarted' ? 'start' : 'end'} ${dataOf<{ callId: string }>(frame).callId}`)
    expect(order.indexOf('start r2')).toBeGreaterThan(order.indexOf('end e1'))
  })

  it('R11 does not dispatch an unknown tool early; it gets `Tool not found: <name>` at close', async () => {
    const { scheduleId } = await open(fresh('unknown'))
    const reply = await add(scheduleId, { id: 'x', name: 'Nowhere', input: {} })
    expect(reply.calls).toEqual([{ id: 'x', name: 'Nowhere', flags: null, dispatched: false }])
    await close(scheduleId)
    expect((await finished(scheduleId)).calls[0]?.modelContent).toBe('Tool not found: Nowhere')
  })

  it('R11 replies 409 for calls after close, and for a second close', async () => {
    const { scheduleId } = await open(fresh('closed'))
    await add(scheduleId, read('r1'))
    await close(scheduleId)
    const late = await s.json<ErrorReply>('POST', `/schedules/${scheduleId}/calls`, read('r2'))
    expect(late.status).toBe(409)
    expect(late.body.error.code).toBe('API_ERR_SCHEDULE_NOT_OPEN')
    expect(late.body.error.message).toMatch(new RegExp(`^Schedule ${scheduleId} is not open for more calls \\(status (queued|running|completed)\\)$`))
    const again = await s.json<ErrorReply>('POST', `/schedules/${scheduleId}/close`)
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('API_ERR_SCHEDULE_NOT_OPEN')
    const record = await finished(scheduleId)
    expect(record.calls.map((call) => call.id)).toEqual(['r1'])
  })

  it('a call whose early dispatch is still being decided when the schedule closes runs once, and the schedule ends after it', async () => {
    for (let round = 0; round < 5; round++) {
      const sessionId = fresh('add-close-race')
      const { scheduleId } = await open(sessionId)
      const adding = s.json('POST', `/schedules/${scheduleId}/calls`, read('r1'))
      // Close as soon as the call is stored, while the request adding it still awaits its permission check.
      while ((await s.runtime.store.schedules.calls(scheduleId)).length === 0) await new Promise((resolve) => setImmediate(resolve))
      await close(scheduleId)
      expect((await adding).status).toBe(202)
      const record = await finished(scheduleId)
      expect(record.calls.map((call) => call.status)).toEqual(['succeeded'])
      const started = (await s.runtime.store.events.after(sessionId, 0, 1000)).filter((event) => event.type === 'ToolCallStarted')
      expect(started).toHaveLength(1)
    }
  })

  it('an abort ends an open schedule cancelled, so that the next schedule of the session runs', async () => {
    const sessionId = fresh('abort-open')
    const { scheduleId } = await open(sessionId)
    await add(scheduleId, { id: 's1', name: 'Sleep', input: { ms: 5000 } })
    expect((await s.json('POST', `/sessions/${sessionId}/abort`)).status).toBe(200)
    const record = await finished(scheduleId)
    expect(record.status).toBe('cancelled')
    expect(record.calls.map((call) => call.status)).toEqual(['cancelled'])
    const late = await s.json<ErrorReply>('POST', `/schedules/${scheduleId}/calls`, read('r1'))
    expect(late.status).toBe(409)
    expect(late.body.error.code).toBe('API_ERR_SCHEDULE_NOT_OPEN')
    const next = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [read('r2')] })
    expect((await finished(next.body.scheduleId)).status).toBe('completed')
  })

  it('holds an open schedule to the 1000 calls a closed one may have: the 1001st streamed call is a 400 and is not stored', async () => {
    const sessionId = fresh('many')
    const { scheduleId } = await open(sessionId)
    // Held calls keep the loop cheap: none of them runs before close.
    await add(scheduleId, edit('held'))
    for (let n = 1; n < 1000; n += 50) {
      await Promise.all(Array.from({ length: Math.min(50, 1000 - n) }, (_, k) => add(scheduleId, read(`r${n + k}`))))
    }
    const over = await s.json<ErrorReply>('POST', `/schedules/${scheduleId}/calls`, read('r1000'))
    expect(over.status).toBe(400)
    expect(over.body.error).toEqual({ code: 'API_ERR_VALIDATION', message: 'A schedule holds at most 1000 calls' })
    expect(await s.runtime.store.schedules.calls(scheduleId)).toHaveLength(1000)
    await s.json('POST', `/sessions/${sessionId}/abort`)
    expect((await finished(scheduleId)).status).toBe('cancelled')
  }, 60_000)

  it('R11 replies 409 for a call added to a schedule that was never open', async () => {
    const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: fresh('closed-from-start'), createSession: {}, calls: [read('r1')] })
    const late = await s.json<ErrorReply>('POST', `/schedules/${reply.body.scheduleId}/calls`, read('r2'))
    expect(late.status).toBe(409)
    expect(late.body.error.code).toBe('API_ERR_SCHEDULE_NOT_OPEN')
  })

  it.each(['calls', 'close'])('replies 404 in the error format for /schedules/:id/%s of an unknown schedule', async (route) => {
    const reply = await s.json<ErrorReply>('POST', `/schedules/sch_missing/${route}`, route === 'calls' ? read('r') : undefined)
    expect(reply.status).toBe(404)
    expect(reply.body.error).toEqual({ code: 'API_ERR_SCHEDULE_NOT_FOUND', message: 'Schedule sch_missing not found' })
  })

  it('replies 409 for a streamed call id already used in the session, 400 for an unknown dependency or a bad body', async () => {
    const sessionId = fresh('ids')
    const { scheduleId } = await open(sessionId)
    await add(scheduleId, read('r1'))
    const taken = await s.json<ErrorReply>('POST', `/schedules/${scheduleId}/calls`, read('r1'))
    expect(taken.status).toBe(409)
    expect(taken.body.error.code).toBe('API_ERR_CALL_ID_TAKEN')
    const badDep = await s.json<ErrorReply>('POST', `/schedules/${scheduleId}/calls`, read('r2', { dependsOn: ['nope'] }))
    expect(badDep.status).toBe(400)
    expect(badDep.body.error.code).toBe('API_ERR_BAD_DEPENDENCY')
    const badBody = await s.json<ErrorReply>('POST', `/schedules/${scheduleId}/calls`, { id: 'r3', name: 'Read', input: {}, extra: 1 })
    expect(badBody.status).toBe(400)
    expect(badBody.body.error.code).toBe('API_ERR_VALIDATION')
    await close(scheduleId)
    expect((await finished(scheduleId)).calls.map((call) => call.id)).toEqual(['r1'])
  })
})
