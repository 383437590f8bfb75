/**
 * Issue 12, one server per data directory: a second server on a data directory in use
 * exits 2 naming the directory and the holder's PID before it reads or writes anything
 * there, so the first one's calls run once; the lock goes with the process, kill -9 included.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { hasCode } from '../../src/contracts/errors.js'
import { createRuntime } from '../../src/wiring.js'
import { spawnCrashServer, type CrashChild } from '../support/crash-child.js'
import { runKey, runsByCall } from '../support/crash-tools.js'
import { runRefusedMain } from '../support/main-process.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { until } from '../support/until.js'

const dirs: string[] = []
const children: CrashChild[] = []

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

async function post(server: CrashChild, sessionId: string, calls: object[]): Promise<string> {
  const reply = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls })
  expect(reply.status).toBe(202)
  return reply.body.scheduleId
}

const schedule = async (server: CrashChild, id: string, wait = 0): Promise<ScheduleReply> => (await server.json<ScheduleReply>('GET', `/schedules/${id}?wait=${wait}`)).body
const statusOf = (reply: ScheduleReply, id: string): string | undefined => reply.calls.find((call) => call.id === id)?.status
const lastEventId = async (server: CrashChild, sessionId: string): Promise<number> => (await server.json<Session>('GET', `/sessions/${sessionId}`)).body.lastEventId

afterAll(async () => {
  await Promise.all(children.map((child) => child.kill()))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('two servers on one data directory (issue 12)', () => {
  let dataDir = ''
  let markerDir = ''
  let releaseFile = ''
  let first: CrashChild
  let refused: Awaited<ReturnType<typeof runRefusedMain>>
  let refusedOnItsPort: Awaited<ReturnType<typeof runRefusedMain>>
  let sleepSchedule = ''
  let queuedSchedule = ''
  let eventsWhileRefused: { before: number; after: number }

  beforeAll(async () => {
    dataDir = tempDir('toolexec-lock-data-')
    markerDir = tempDir('toolexec-lock-runs-')
    releaseFile = path.join(tempDir('toolexec-lock-release-'), 'release')
    first = await spawnCrashServer(dataDir, markerDir)
    children.push(first)
    // It runs until the refused starts are over, however long they take.
    sleepSchedule = await post(first, 'lk', [{ id: 'slow', name: 'WaitForFile', input: { path: releaseFile } }])
    queuedSchedule = await post(first, 'lk', [{ id: 'after', name: 'Read', input: { file_path: 'after.txt' } }])
    await until(async () => (statusOf(await schedule(first, sleepSchedule), 'slow') === 'running' ? true : undefined), 'the first call to run', 10_000)
    expect((await schedule(first, queuedSchedule)).status).toBe('queued')
    const before = await lastEventId(first, 'lk')
    // Given the first server's port, the start would fail there too: the lock comes first. Two
    // starts of the whole server at once take many seconds on a loaded machine: they are waited
    // out (runRefusedMain kills only one that listens, or that hangs for a minute).
    ;[refused, refusedOnItsPort] = await Promise.all([runRefusedMain(dataDir), runRefusedMain(dataDir, { PORT: new URL(first.url).port })])
    eventsWhileRefused = { before, after: await lastEventId(first, 'lk') }
    expect(statusOf(await schedule(first, sleepSchedule), 'slow')).toBe('running')
    writeFileSync(releaseFile, '')
  }, 150_000)

  it('the second start exits 2 with one line naming the data directory and the PID of the server holding it', () => {
    const line = `toolexec: Data directory ${dataDir} is in use by another toolexec server (PID ${first.process.pid}); stop it or start with another --data-dir\n`
    expect(refused).toMatchObject({ code: 2, stderr: line })
    expect(refused.stdout).not.toContain('listening')
    expect(refusedOnItsPort).toMatchObject({ code: 2, stderr: line })
  })

  it('R8 the first server runs its running and queued calls once each, none marked interrupted', async () => {
    const slept = await schedule(first, sleepSchedule, 10)
    const queued = await schedule(first, queuedSchedule, 10)
    expect([slept.status, queued.status]).toEqual(['completed', 'completed'])
    expect([statusOf(slept, 'slow'), statusOf(queued, 'after')]).toEqual(['succeeded', 'succeeded'])
    const runs = runsByCall(markerDir)
    expect(runs.get(runKey('lk', 'slow'))).toEqual([first.process.pid])
    expect(runs.get(runKey('lk', 'after'))).toEqual([first.process.pid])
  })

  it('the refused starts recorded nothing: no event was added while the first call still ran', () => {
    expect(eventsWhileRefused.before).toBeGreaterThan(0)
    expect(eventsWhileRefused.after).toBe(eventsWhileRefused.before)
  })

  it('after kill -9 of the holder, the next server gets the directory at once and recovers its call', async () => {
    const interruptedSchedule = await post(first, 'lk', [{ id: 'killed', name: 'Sleep', input: { ms: 10_000 } }])
    await until(async () => (statusOf(await schedule(first, interruptedSchedule), 'killed') === 'running' ? true : undefined), 'the Sleep to run', 10_000)
    await first.kill()
    const next = await spawnCrashServer(dataDir, markerDir)
    children.push(next)
    const recovered = await schedule(next, interruptedSchedule, 5)
    expect([recovered.status, statusOf(recovered, 'killed')]).toEqual(['completed', 'interrupted'])
    expect(runsByCall(markerDir).get(runKey('lk', 'killed'))).toEqual([first.process.pid])
  })
})

describe('two servers on one data directory in one process', () => {
  const servers: TestServer[] = []
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close()
  })

  it('startServer refuses a directory this process already serves, naming it, and leaves the first serving', async () => {
    const server = await startTestServer()
    servers.push(server)
    const second = startTestServer({ dataDir: server.dataDir })
    await expect(second).rejects.toSatisfy((error) => hasCode(error, 'STORE_ERR_DATA_DIR_LOCKED'))
    await expect(second).rejects.toThrow(`Data directory ${server.dataDir} is in use by another toolexec server (PID ${process.pid}, this process)`)
    expect((await server.json('POST', '/sessions', { id: 'still-here' })).status).toBe(201)
  })

  it('a closed server gives the directory back, even before its close() settles', async () => {
    const dataDir = tempDir('toolexec-lock-reuse-')
    const options = { dataDir, workspace: dataDir, tools: [], logger: pino({ level: 'silent' }) }
    const runtime = await createRuntime(options)
    // A turn that does not end when aborted keeps close() waiting for it (its kills) long after the database closed.
    runtime.live.get('held').tail = new Promise<void>(() => {})
    let settled = false
    const closing = runtime.close().finally(() => {
      settled = true
    })
    const again = await until(
      () => createRuntime(options).catch((error: unknown) => (hasCode(error, 'STORE_ERR_DATA_DIR_LOCKED') ? undefined : Promise.reject(error))),
      'the directory given back',
      1_000,
    )
    expect(settled).toBe(false)
    await again.close()
    await closing
  })
})
