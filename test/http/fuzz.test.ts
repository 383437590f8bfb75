/**
 * Issue 3, fuzz: thousands of malformed requests across every route against the real
 * server on 127.0.0.1 and its SQLite file. No 5xx, every 4xx has the `{error:{code,message}}`
 * shape, a rejected request writes no row, and /healthz still answers after each batch.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { Pool } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionRequestRecord, ScheduleAcceptedReply } from '../../src/contracts/api.js'
import { routeRequests, type FuzzPools, type FuzzRequest } from '../support/crash-fuzz.js'
import { rowCounts } from '../support/row-counts.js'
import { readTool, editTool } from '../support/tools.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { until } from '../support/until.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'
import { anyOf } from '../support/matchers.js'

/** Runs per route; 14 routes, 2,800 requests. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

let server: TestServer
let pool: Pool
let pools: FuzzPools
const tally = new Map<string, { accepted: number; rejected: number }>()

const counted = async (): Promise<string> => JSON.stringify(await rowCounts(server))
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Nothing goes on by itself: every session's schedules have ended, or wait, with none of its
 * calls running, on an approval or on an open schedule (only a decision, or calls added to it
 * or its close, moves them on).
 */
function settled(): true | undefined {
  const db = sqliteDatabaseOf(server.runtime.store)
  const count = (sql: string) => {
    const statement = db.prepare(sql).pluck()
    return (sessionId: string): number => statement.get(sessionId) as number
  }
  const runningCalls = count("SELECT count(*) FROM tool_calls WHERE session_id = ? AND status = 'running'")
  const pendingApprovals = count("SELECT count(*) FROM permission_requests WHERE session_id = ? AND status = 'pending'")
  const openSchedules = count("SELECT count(*) FROM schedules WHERE session_id = ? AND status = 'open'")
  const waiting = (sessionId: string): boolean => runningCalls(sessionId) === 0 && (pendingApprovals(sessionId) > 0 || openSchedules(sessionId) > 0)
  return server.runtime.live.all().every((live) => live.running === 0 || waiting(live.id)) ? true : undefined
}

/** An accepted request may go on writing (its schedule runs): wait until its work has settled, and its rows stop changing. */
async function quiesce(): Promise<void> {
  await until(settled, 'the work of an accepted request to end or wait on an approval', 15_000, 5)
  let last = await counted()
  // Reads a few ms apart: a schedule's commits come a tick or a file read apart.
  for (let stable = 0; stable < 3;) {
    await pause(5)
    const next = await counted()
    stable = next === last ? stable + 1 : 0
    last = next
  }
}

function describeRequest(request: FuzzRequest): string {
  const body = request.body === undefined ? '' : ` body(${request.body.length})=${request.body.slice(0, 120)}`
  return `${request.method} ${request.path.slice(0, 160)} ${JSON.stringify(request.headers)}${body}`
}

async function send(request: FuzzRequest): Promise<{ status: number; type: string; text: string }> {
  const response = await pool.request({ method: request.method, path: request.path, headers: request.headers, body: request.body })
  const type = String(response.headers['content-type'] ?? '')
  if (type.startsWith('text/event-stream')) {
    // An accepted stream never ends by itself; its headers are the answer.
    response.body.destroy()
    return { status: response.statusCode, type, text: '' }
  }
  return { status: response.statusCode, type, text: await response.body.text() }
}

async function checkOne(route: string, request: FuzzRequest): Promise<void> {
  const what = describeRequest(request)
  const before = await counted()
  const { status, type, text } = await send(request)
  const counts = tally.get(route) ?? { accepted: 0, rejected: 0 }
  tally.set(route, counts)
  expect(status, what).toBeLessThan(500)
  if (status < 400) {
    counts.accepted++
    if (request.method !== 'GET') await quiesce()
    return
  }
  counts.rejected++
  expect(type, what).toMatch(/^application\/json/)
  const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }
  expect(body.error, `${what} -> ${text.slice(0, 300)}`).toEqual(expect.objectContaining({ code: anyOf(String), message: anyOf(String) }))
  await nextTurn()
  await nextTurn()
  expect(await counted(), `${what} -> ${status} wrote rows`).toBe(before)
}

async function seedPools(): Promise<FuzzPools> {
  for (const body of [{ id: 'fz-a' }, { id: 'fz-b', permissionMode: 'bypassPermissions' }, { id: 'fz-c' }]) {
    expect((await server.json('POST', '/sessions', body)).status).toBe(201)
  }
  const done = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 'fz-b', createSession: {}, calls: [{ id: 'r0', name: 'Read', input: { file_path: 'a' } }] })
  expect((await server.json<{ status: string }>('GET', `/schedules/${done.body.scheduleId}?wait=5`)).body.status).toBe('completed')
  await server.json('POST', '/schedules', { sessionId: 'fz-a', createSession: {}, calls: [{ id: 'e0', name: 'Edit', input: { file_path: 'a' } }] })
  await server.json('POST', '/schedules', { sessionId: 'fz-c', createSession: {}, calls: [{ id: 'd0', name: 'Edit', input: { file_path: 'a' } }] })
  const pending = await pendingRequests(2)
  const decided = pending.find((request) => request.sessionId === 'fz-c')?.id ?? ''
  expect((await server.json('POST', `/permissions/${decided}`, { decision: 'deny', message: 'no' })).status).toBe(200)
  const open: string[] = []
  for (const sessionId of ['fz-o1', 'fz-o2', 'fz-o3']) {
    open.push((await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, open: true, calls: [] })).body.scheduleId)
  }
  return {
    sessions: ['fz-a', 'fz-b', 'fz-c', 'fz-o1'],
    doneSchedules: [done.body.scheduleId],
    openSchedules: open,
    permissions: pending.map((request) => request.id),
    artifacts: [
      ['fz-b', await seedArtifact('fz-b')],
      ['fz-a', 'tool-result-missing'],
    ],
  }
}

async function pendingRequests(count: number): Promise<PermissionRequestRecord[]> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const reply = await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?status=pending')
    if (reply.body.requests.length >= count) return reply.body.requests
    await pause(10)
  }
  throw new Error(`fewer than ${count} pending requests`)
}

/** A real artifact file and row, so Range headers meet real bytes. */
async function seedArtifact(sessionId: string): Promise<string> {
  const id = 'tool-result-fuzz'
  const file = path.join(server.dataDir, 'cli', 'artifacts', sessionId, `r0-${id}.txt`)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, 'x'.repeat(1_000))
  const ref = { id, sessionId, callId: 'r0', path: file, uri: `toolexec-artifact://${sessionId}/${id}`, bytes: 1_000, mediaType: 'text/plain', retention: 'session' as const, sha256: '0'.repeat(64) }
  await server.runtime.store.commit((unit) => unit.artifacts.insert(ref, new Date().toISOString()))
  return id
}

describe('fuzzing every route with malformed requests (issue 3)', () => {
  beforeAll(async () => {
    server = await startTestServer({ tools: [readTool, editTool] })
    pool = new Pool(server.url, { connections: 4, pipelining: 1 })
    pools = await seedPools()
  })

  afterAll(async () => {
    if (process.env.FUZZ_TALLY !== undefined) console.log(Object.fromEntries(tally))
    await pool?.close()
    await server?.close()
    if (server !== undefined) rmSync(server.dataDir, { recursive: true, force: true })
  })

  const routes = [
    'POST /sessions',
    'GET /sessions',
    'GET /sessions/:id',
    'POST /sessions/:id/abort',
    'GET /sessions/:id/history',
    'GET /sessions/:id/events',
    'POST /schedules',
    'POST /schedules/:id/calls',
    'POST /schedules/:id/close',
    'GET /schedules/:id',
    'POST /permissions/:id',
    'GET /permissions',
    'GET /artifacts/:sessionId/:artifactId',
    'GET /tools, /healthz, /openapi.json',
    'DELETE /sessions/:id',
    'any method, any path',
  ]

  it.each(routes)(
    'answers %s without a 5xx, with {error:{code,message}} on every 4xx, no row written when rejected, and stays healthy',
    async (route) => {
      const arbitrary = routeRequests(pools)[route]
      if (arbitrary === undefined) throw new Error(`no generator for ${route}`)
      await fc.assert(
        fc.asyncProperty(arbitrary, (request) => checkOne(route, request)),
        { numRuns: RUNS, endOnFailure: true, ...(SEED === undefined ? null : { seed: SEED }) },
      )
      expect(await server.json('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } })
      const counts = tally.get(route)
      expect((counts?.accepted ?? 0) + (counts?.rejected ?? 0)).toBe(RUNS)
      if (route !== 'GET /tools, /healthz, /openapi.json') expect(counts?.rejected ?? 0).toBeGreaterThan(0)
    },
    30_000,
  )
})
