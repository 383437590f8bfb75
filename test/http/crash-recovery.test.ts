/**
 * Issue 3, crash recovery: a child-process server runs schedules with approvals and slow
 * calls, is killed with SIGKILL while a Sleep handler runs, an approval is pending and a
 * schedule is queued, then restarts on the same data dir.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryEntry, PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { INTERRUPTED_TEXT } from '../../src/sessions/recovery.js'
import { readAllEvents, spawnCrashServer, type CrashChild, type SseFrame } from '../support/crash-child.js'
import { runKey, runsByCall } from '../support/crash-tools.js'
import { until } from '../support/until.js'
import { tempDirSync } from '../support/temp-dirs.js'

const SLEEP_MS = 2_000
const DENY_MESSAGE = 'Not this file, please'
type Status = ScheduleReply['calls'][number]['status']

/** Every call of the workload: its schedule, what it ends as, and how many handler runs (before / after the crash). */
const CALLS: readonly { session: string; schedule: string; id: string; status: Status; runsBefore: number; runsAfter: number }[] = [
  { session: 'cr-done', schedule: 'D1', id: 'done-read', status: 'succeeded', runsBefore: 1, runsAfter: 0 },
  { session: 'cr-approvals', schedule: 'B1', id: 'e-allow', status: 'succeeded', runsBefore: 1, runsAfter: 0 },
  { session: 'cr-approvals', schedule: 'B1', id: 'e-deny', status: 'denied', runsBefore: 0, runsAfter: 0 },
  { session: 'cr-approvals', schedule: 'B1', id: 'e-pending', status: 'succeeded', runsBefore: 0, runsAfter: 1 },
  { session: 'cr-approvals', schedule: 'B2', id: 'appr-read', status: 'succeeded', runsBefore: 0, runsAfter: 1 },
  { session: 'cr-sleep', schedule: 'A1', id: 'sleep-long', status: 'interrupted', runsBefore: 1, runsAfter: 0 },
  { session: 'cr-sleep', schedule: 'A1', id: 'read-after', status: 'succeeded', runsBefore: 0, runsAfter: 1 },
  { session: 'cr-sleep', schedule: 'A2', id: 'queued-read', status: 'succeeded', runsBefore: 0, runsAfter: 1 },
  { session: 'cr-sleep', schedule: 'A2', id: 'queued-sleep', status: 'succeeded', runsBefore: 0, runsAfter: 1 },
  { session: 'cr-parallel', schedule: 'C1', id: 'par-sleep', status: 'interrupted', runsBefore: 1, runsAfter: 0 },
  { session: 'cr-parallel', schedule: 'C1', id: 'par-read', status: 'succeeded', runsBefore: 1, runsAfter: 0 },
  { session: 'cr-parallel', schedule: 'C1', id: 'par-quick', status: 'succeeded', runsBefore: 1, runsAfter: 0 },
]
const SESSIONS = [...new Set(CALLS.map((call) => call.session))]

const read = (id: string, extra: object = {}) => ({ id, name: 'Read', input: { file_path: `${id}.txt` }, ...extra })
const edit = (id: string) => ({ id, name: 'Edit', input: { file_path: `${id}.txt` } })
const sleep = (id: string, ms: number) => ({ id, name: 'Sleep', input: { ms } })

interface Life {
  readonly pid: number
  readonly lastSeq: Map<string, number>
  readonly events: Map<string, SseFrame[]>
}

const children: CrashChild[] = []
const scheduleIds = new Map<string, string>()
const finalSchedules = new Map<string, ScheduleReply>()
const histories = new Map<string, HistoryEntry[]>()
let dataDir = ''
let markerDir = ''
let pendingPermission: PermissionRequestRecord
let pendingAfterRestart: PermissionRequestRecord[] = []
let answerAfterRestart: { status: number; body: PermissionRequestRecord }
let statusAfterRestart: Session['status']
let before: Life
let after: Life

async function post(server: CrashChild, schedule: string, session: string, calls: object[]): Promise<void> {
  const reply = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: session, createSession: {}, calls })
  expect(reply.status).toBe(202)
  scheduleIds.set(schedule, reply.body.scheduleId)
}

async function schedule(server: CrashChild, name: string, wait = 0): Promise<ScheduleReply> {
  const reply = await server.json<ScheduleReply>('GET', `/schedules/${scheduleIds.get(name)}?wait=${wait}`)
  expect(reply.status).toBe(200)
  return reply.body
}

async function pendingFor(server: CrashChild, callId: string): Promise<PermissionRequestRecord | undefined> {
  const reply = await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?status=pending')
  return reply.body.requests.find((request) => request.callId === callId)
}

async function answer(server: CrashChild, callId: string, body: object): Promise<void> {
  const request = await until(() => pendingFor(server, callId), `the approval of ${callId}`)
  expect((await server.json('POST', `/permissions/${request.id}`, body)).status).toBe(200)
}

const callStatus = (reply: ScheduleReply, id: string): Status | undefined => reply.calls.find((call) => call.id === id)?.status

async function snapshot(server: CrashChild): Promise<Life> {
  const lastSeq = new Map<string, number>()
  const events = new Map<string, SseFrame[]>()
  for (const session of SESSIONS) {
    const view = await server.json<Session>('GET', `/sessions/${session}`)
    lastSeq.set(session, view.body.lastEventId)
    events.set(session, await readAllEvents(server.url, session, view.body.lastEventId))
  }
  return { pid: server.process.pid ?? 0, lastSeq, events }
}

/** First life: everything up to the SIGKILL, which lands while both 2 s sleeps still run. */
async function runUntilKilled(server: CrashChild): Promise<void> {
  await post(server, 'D1', 'cr-done', [read('done-read')])
  expect((await schedule(server, 'D1', 5)).status).toBe('completed')
  await post(server, 'B1', 'cr-approvals', [edit('e-allow'), edit('e-deny'), edit('e-pending')])
  await post(server, 'B2', 'cr-approvals', [read('appr-read')])
  await answer(server, 'e-allow', { decision: 'allow' })
  await answer(server, 'e-deny', { decision: 'deny', message: DENY_MESSAGE })
  pendingPermission = await until(() => pendingFor(server, 'e-pending'), 'the approval of e-pending')
  const sleepsPosted = Date.now()
  await post(server, 'A1', 'cr-sleep', [sleep('sleep-long', SLEEP_MS), read('read-after', { dependsOn: ['sleep-long'] })])
  await post(server, 'A2', 'cr-sleep', [read('queued-read'), sleep('queued-sleep', 50)])
  await post(server, 'C1', 'cr-parallel', [sleep('par-sleep', SLEEP_MS), read('par-read'), sleep('par-quick', 10)])
  await until(async () => (callStatus(await schedule(server, 'A1'), 'sleep-long') === 'running' ? true : undefined), 'sleep-long to run')
  await until(async () => {
    const c1 = await schedule(server, 'C1')
    return callStatus(c1, 'par-sleep') === 'running' && callStatus(c1, 'par-quick') === 'succeeded' && callStatus(c1, 'par-read') === 'succeeded' ? true : undefined
  }, 'par-sleep to run beside finished siblings')
  before = await snapshot(server)
  // The kill must land while the handler runs, an approval is pending and schedules are queued.
  expect((await schedule(server, 'A2')).status).toBe('queued')
  expect((await schedule(server, 'B2')).status).toBe('queued')
  expect(await pendingFor(server, 'e-pending')).toMatchObject({ id: pendingPermission.id })
  expect(runsByCall(markerDir).get(runKey('cr-sleep', 'sleep-long'))).toHaveLength(1)
  expect(Date.now() - sleepsPosted).toBeLessThan(SLEEP_MS - 200)
  await server.kill()
  expect(server.process.signalCode).toBe('SIGKILL')
}

/** Second life on the same data dir: answer the surviving approval by its old id, let everything end. */
async function runAfterRestart(server: CrashChild): Promise<void> {
  pendingAfterRestart = (await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?status=pending')).body.requests
  statusAfterRestart = (await server.json<Session>('GET', '/sessions/cr-approvals')).body.status
  answerAfterRestart = await server.json<PermissionRequestRecord>('POST', `/permissions/${pendingPermission.id}`, { decision: 'allow' })
  for (const name of new Set(CALLS.map((call) => call.schedule))) finalSchedules.set(name, await schedule(server, name, 10))
  for (const session of SESSIONS) {
    histories.set(session, (await server.json<{ entries: HistoryEntry[] }>('GET', `/sessions/${session}/history`)).body.entries)
  }
  after = await snapshot(server)
}

describe('crash recovery: SIGKILL mid-run, restart on the same data dir (issue 3)', () => {
  beforeAll(async () => {
    dataDir = tempDirSync('crash-data')
    markerDir = tempDirSync('crash-runs')
    const first = await spawnCrashServer(dataDir, markerDir)
    children.push(first)
    await runUntilKilled(first)
    const second = await spawnCrashServer(dataDir, markerDir)
    children.push(second)
    await runAfterRestart(second)
  }, 40_000)

  afterAll(async () => {
    await Promise.all(children.map((child) => child.kill()))
    for (const dir of [dataDir, markerDir]) if (dir !== '') rmSync(dir, { recursive: true, force: true })
  })

  it('R39 ends every accepted call in exactly one terminal record, in its schedule and in the history', () => {
    for (const [name, reply] of finalSchedules) {
      expect(reply.status, name).toBe('completed')
      const expected = CALLS.filter((call) => call.schedule === name)
      expect(reply.calls.map((call) => [call.id, call.status])).toEqual(expected.map((call) => [call.id, call.status]))
    }
    for (const session of SESSIONS) {
      const entries = histories.get(session) ?? []
      const expected = CALLS.filter((call) => call.session === session)
      expect(entries.map((entry) => entry.callId).sort()).toEqual(expected.map((call) => call.id).sort())
      for (const entry of entries) {
        const record = finalSchedules.get(expected.find((call) => call.id === entry.callId)?.schedule ?? '')?.calls.find((call) => call.id === entry.callId)
        expect(entry.modelContent).toEqual(record?.modelContent)
      }
    }
  })

  it.each(CALLS.filter((call) => call.status === 'interrupted'))('R39 marks $id, whose handler had started, interrupted with a model text saying so, and never runs it again', ({ session, id }) => {
    const entry = histories.get(session)?.find((candidate) => candidate.callId === id)
    expect(entry).toMatchObject({ status: 'interrupted', isError: true, modelContent: INTERRUPTED_TEXT })
    expect(runsByCall(markerDir).get(runKey(session, id))).toEqual([before.pid])
  })

  it('R8 runs every call that had not started, queued schedules included, exactly once after the restart', () => {
    const runs = runsByCall(markerDir)
    for (const call of CALLS) {
      const pids = runs.get(runKey(call.session, call.id)) ?? []
      expect(pids, call.id).toEqual([...Array<number>(call.runsBefore).fill(before.pid), ...Array<number>(call.runsAfter).fill(after.pid)])
    }
    const denied = histories.get('cr-approvals')?.find((entry) => entry.callId === 'e-deny')
    expect(JSON.stringify(denied?.modelContent)).toContain(DENY_MESSAGE)
  })

  it('R18 keeps the pending approval across the restart; answered with its old id, its call runs', () => {
    expect(statusAfterRestart).toBe('awaiting_permission')
    expect(pendingAfterRestart.map((request) => [request.id, request.callId])).toEqual([[pendingPermission.id, 'e-pending']])
    expect(answerAfterRestart.status).toBe(200)
    expect(answerAfterRestart.body).toMatchObject({ id: pendingPermission.id, status: 'allow', decidedBy: 'client' })
    const frames = after.events.get('cr-approvals') ?? []
    const requested = frames.filter((frame) => frame.event === 'PermissionRequested' && frame.data.callId === 'e-pending')
    expect(requested.length).toBeGreaterThanOrEqual(1)
    for (const frame of requested) expect(frame.data.permissionId).toBe(pendingPermission.id)
    const resolved = frames.filter((frame) => frame.event === 'PermissionResolved' && frame.data.callId === 'e-pending')
    expect(resolved.map((frame) => [frame.data.permissionId, frame.data.decision, frame.data.decidedBy])).toEqual([[pendingPermission.id, 'allow', 'client']])
    expect(resolved[0]?.id).toBeGreaterThan(before.lastSeq.get('cr-approvals') ?? 0)
  })

  it.each(SESSIONS)('R37 keeps the events of %s numbered 1..N with no gap or duplicate, recovered outcomes appended', (session) => {
    const frames = after.events.get(session) ?? []
    const lastSeq = after.lastSeq.get(session) ?? 0
    expect(frames.map((frame) => frame.id)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1))
    for (const frame of frames) expect([frame.data.seq, frame.data.sessionId, frame.data.type]).toEqual([frame.id, session, frame.event])
    expect(frames.slice(0, before.lastSeq.get(session))).toEqual(before.events.get(session))
    const calls = CALLS.filter((call) => call.session === session)
    for (const call of calls) {
      const results = frames.filter((frame) => frame.event === 'ToolCallResult' && frame.data.callId === call.id)
      expect(
        results.map((frame) => (frame.data.result as { status: string }).status),
        call.id,
      ).toEqual([call.status])
      const recovered = call.status === 'interrupted' || call.runsAfter > 0
      if (recovered) expect(results[0]?.id, call.id).toBeGreaterThan(before.lastSeq.get(session) ?? 0)
    }
    const completed = frames.filter((frame) => frame.event === 'ScheduleCompleted').map((frame) => frame.data.scheduleId)
    expect(completed.sort()).toEqual([...new Set(calls.map((call) => scheduleIds.get(call.schedule)))].sort())
  })
})
