import { afterEach, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { countRuns, runKey, runsByCall } from '../support/crash-tools.js'
import { startMain } from '../support/main-process.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { sleepTool } from '../support/tools.js'
import { tempDirSync } from '../support/temp-dirs.js'

let server: TestServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

async function schedule(s: TestServer, calls: unknown[]): Promise<string> {
  const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's1', createSession: {}, calls })
  expect(accepted.status).toBe(202)
  return accepted.body.scheduleId
}

async function callStatus(s: TestServer, scheduleId: string, index = 0): Promise<string | undefined> {
  return (await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}`)).body.calls[index]?.status
}

describe('stopping the server with a grace period', () => {
  it('lets a running call finish and keeps its result, instead of leaving it interrupted', async () => {
    const markers = tempDirSync('drain-runs')
    const tools = [countRuns(sleepTool(), markers)]
    server = await startTestServer({ tools })
    const scheduleId = await schedule(server, [{ id: 'c1', name: 'Sleep', input: { ms: 400 } }])
    await expect.poll(() => callStatus(server as TestServer, scheduleId), { timeout: 5_000 }).toBe('running')
    await server.close({ graceMs: 5_000 })

    server = await startTestServer({ tools, dataDir: server.dataDir })
    const after = await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=5`)
    expect(after.body.calls[0]).toMatchObject({ status: 'succeeded', modelContent: 'slept 400', result: { status: 'succeeded' } })
    expect(runsByCall(markers).get(runKey('s1', 'c1'))).toHaveLength(1)
  })

  it('starts nothing new meanwhile: a call that had not started runs once, at the next start', async () => {
    const markers = tempDirSync('drain-runs')
    const tools = [countRuns(sleepTool(), markers)]
    server = await startTestServer({ tools })
    const first = await schedule(server, [{ id: 'c1', name: 'Sleep', input: { ms: 400 } }])
    const second = await schedule(server, [{ id: 'c2', name: 'Sleep', input: { ms: 1 } }])
    await expect.poll(() => callStatus(server as TestServer, first), { timeout: 5_000 }).toBe('running')
    await server.close({ graceMs: 5_000 })
    expect(runsByCall(markers).has(runKey('s1', 'c2'))).toBe(false)

    server = await startTestServer({ tools, dataDir: server.dataDir })
    expect((await server.json<ScheduleReply>('GET', `/schedules/${first}`)).body.calls[0]).toMatchObject({ status: 'succeeded' })
    expect((await server.json<ScheduleReply>('GET', `/schedules/${second}?wait=5`)).body.calls[0]).toMatchObject({ status: 'succeeded' })
    expect(runsByCall(markers).get(runKey('s1', 'c2'))).toHaveLength(1)
  })

  it('stops a call still running when the grace period ends; it is interrupted at the next start', async () => {
    server = await startTestServer({ tools: [sleepTool()] })
    const scheduleId = await schedule(server, [{ id: 'c1', name: 'Sleep', input: { ms: 30_000 } }])
    await expect.poll(() => callStatus(server as TestServer, scheduleId), { timeout: 5_000 }).toBe('running')
    const started = performance.now()
    await server.close({ graceMs: 300 })
    const took = performance.now() - started
    expect(took).toBeGreaterThanOrEqual(250)
    expect(took).toBeLessThan(3_000)

    server = await startTestServer({ tools: [sleepTool()], dataDir: server.dataDir })
    expect(await callStatus(server, scheduleId)).toBe('interrupted')
  })

  it('does not wait for a call that awaits approval: it stays pending, answerable after the restart', async () => {
    const tools = [sleepTool('Nap', { readOnly: false })]
    server = await startTestServer({ tools })
    const scheduleId = await schedule(server, [{ id: 'c1', name: 'Nap', input: { ms: 1 } }])
    await expect.poll(() => callStatus(server as TestServer, scheduleId), { timeout: 5_000 }).toBe('awaiting_permission')
    const started = performance.now()
    await server.close({ graceMs: 5_000 })
    expect(performance.now() - started).toBeLessThan(2_000)

    server = await startTestServer({ tools, dataDir: server.dataDir })
    const pending = await server.json<{ requests: Array<{ id: string }> }>('GET', '/permissions?sessionId=s1&status=pending')
    expect(pending.body.requests).toHaveLength(1)
  })
})

/** A call that runs until released, so that a test picks the very tick in which it ends. */
function gateTool(): { entry: ToolEntry; release: () => void } {
  let release = (): void => {}
  const opened = new Promise<void>((resolve) => {
    release = resolve
  })
  return { entry: { ...sleepTool('Gate'), handler: () => opened.then(() => 'opened') }, release }
}

describe('the moment the stop begins', () => {
  it.each([
    ['with a grace period', 2_000],
    ['with no grace period', 0],
  ])('%s, starts no call, not even one whose dependency ends just then: it runs once, at the next start', async (_, graceMs) => {
    const markers = tempDirSync('drain-runs')
    const gate = gateTool()
    const tools = [gate.entry, countRuns(sleepTool(), markers)]
    server = await startTestServer({ tools })
    const scheduleId = await schedule(server, [
      { id: 'first', name: 'Gate', input: { ms: 0 } },
      { id: 'next', name: 'Sleep', input: { ms: 1 }, dependsOn: ['first'] },
    ])
    await expect.poll(() => callStatus(server as TestServer, scheduleId), { timeout: 5_000 }).toBe('running')
    gate.release()
    await server.close({ graceMs })
    expect(runsByCall(markers).has(runKey('s1', 'next'))).toBe(false)

    server = await startTestServer({ tools, dataDir: server.dataDir })
    const after = await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=5`)
    expect(after.body.calls[1]).toMatchObject({ id: 'next', status: 'succeeded' })
    expect(runsByCall(markers).get(runKey('s1', 'next'))).toHaveLength(1)
  })
})

describe('npm start on SIGTERM', () => {
  it('waits TOOLEXEC_SHUTDOWN_GRACE_MS for a running command, whose result is kept', async () => {
    const dataDir = tempDirSync('drain-main')
    const first = await startMain(dataDir, 5_000)
    const post = (body: unknown): Promise<Response> => fetch(`${first.url}/schedules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    await fetch(`${first.url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 's1', permissionMode: 'bypassPermissions' }) })
    const accepted = (await (await post({ sessionId: 's1', createSession: {}, calls: [{ id: 'c1', name: 'Bash', input: { command: 'sleep 0.6; echo drained' } }] })).json()) as ScheduleAcceptedReply
    const status = async (url: string): Promise<string | undefined> => ((await (await fetch(`${url}/schedules/${accepted.scheduleId}`)).json()) as ScheduleReply).calls[0]?.status
    await expect.poll(() => status(first.url), { timeout: 5_000 }).toBe('running')
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    const stopped = first
      .output()
      .stdout.split('\n')
      .find((line) => line.includes('"msg":"toolexec stopped"'))
    expect(JSON.parse(stopped ?? '{}')).toMatchObject({ running: 1, finished: 1, stopped: 0, graceMs: 5_000 })

    const second = await startMain(dataDir, 5_000)
    try {
      const reply = (await (await fetch(`${second.url}/schedules/${accepted.scheduleId}?wait=5`)).json()) as ScheduleReply
      expect(reply.calls[0]).toMatchObject({ status: 'succeeded' })
      expect(JSON.stringify(reply.calls[0]?.modelContent)).toContain('drained')
    } finally {
      second.child.kill('SIGKILL')
      await second.exited
    }
  }, 30_000)
})

describe('npm start on a second signal', () => {
  it.each([
    ['SIGTERM', 'SIGTERM', 143],
    ['SIGTERM', 'SIGINT', 130],
    ['SIGINT', 'SIGTERM', 143],
  ] as const)(
    'after %s, %s stops it at once, as a crash would; the running call is interrupted at the next start',
    async (first, second, code) => {
      const dataDir = tempDirSync('drain-main')
      const server = await startMain(dataDir, 5_000)
      const json = { 'content-type': 'application/json' }
      await fetch(`${server.url}/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ id: 's1', permissionMode: 'bypassPermissions' }) })
      const calls = [{ id: 'c1', name: 'Bash', input: { command: 'sleep 30' } }]
      const accepted = (await (
        await fetch(`${server.url}/schedules`, { method: 'POST', headers: json, body: JSON.stringify({ sessionId: 's1', createSession: {}, calls }) })
      ).json()) as ScheduleAcceptedReply
      const status = async (url: string): Promise<string | undefined> => ((await (await fetch(`${url}/schedules/${accepted.scheduleId}`)).json()) as ScheduleReply).calls[0]?.status
      await expect.poll(() => status(server.url), { timeout: 5_000 }).toBe('running')
      const started = performance.now()
      server.child.kill(first)
      await new Promise((resolve) => setTimeout(resolve, 200))
      server.child.kill(second)
      expect(await server.exited).toBe(code)
      expect(performance.now() - started).toBeLessThan(2_000)

      const again = await startMain(dataDir, 5_000)
      try {
        expect(await status(again.url)).toBe('interrupted')
      } finally {
        again.child.kill('SIGKILL')
        await again.exited
      }
    },
    30_000,
  )
})
