import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { groupOf, hostPidInFile, hostPidInFileSoon, isRunning, killAll } from '../support/processes.js'
import { startTestServer, type TestServer } from '../support/server.js'

let server: TestServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/** A command that writes its shell's pid and tag to a file, then sleeps; with its process group id. */
async function startSleeper(s: TestServer, callId: string, background: boolean): Promise<{ scheduleId: string; pgid: number }> {
  const pidFile = path.join(s.dataDir, `${callId}.pid`)
  const input = { command: `echo "$$ $TOOLEXEC_PROCESS_TAG" > ${pidFile}; sleep 30`, ...(background ? { run_in_background: true } : {}) }
  const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's1', createSession: {}, calls: [{ id: callId, name: 'Bash', input }] })
  expect(accepted.status).toBe(202)
  await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), { timeout: 5_000 }).toBe(true)
  return { scheduleId: accepted.body.scheduleId, pgid: groupOf(hostPidInFile(pidFile) ?? 0) ?? 0 }
}

describe('shutting the server down', () => {
  it('kills the process tree of a running command, which is interrupted at the next start and not run again', async () => {
    server = await startTestServer({ tools: builtinTools() })
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    const { scheduleId, pgid } = await startSleeper(server, 'c1', false)
    expect(groupAlive(pgid)).toBe(true)
    await server.close()
    await expect.poll(() => groupAlive(pgid), { timeout: 2_000 }).toBe(false)

    server = await startTestServer({ tools: builtinTools(), dataDir: server.dataDir })
    const schedule = await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=5`)
    expect(schedule.body.calls[0]).toMatchObject({ status: 'interrupted' })
  })

  it('kills a background task with its tree', async () => {
    server = await startTestServer({ tools: builtinTools() })
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    const { scheduleId, pgid } = await startSleeper(server, 'c1', true)
    const schedule = await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=5`)
    expect(schedule.body.calls[0]).toMatchObject({ status: 'succeeded' })
    expect(groupAlive(pgid)).toBe(true)
    await server.close()
    await expect.poll(() => groupAlive(pgid), { timeout: 2_000 }).toBe(false)
  })

  it('kills what a running command started outside its process group', async () => {
    server = await startTestServer({ tools: builtinTools() })
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    const pidFile = path.join(server.dataDir, 'escaped.pid')
    const input = { command: `setsid sleep 300 & echo "$! $TOOLEXEC_PROCESS_TAG" > ${pidFile}; sleep 30` }
    expect((await server.json('POST', '/schedules', { sessionId: 's1', createSession: {}, calls: [{ id: 'c1', name: 'Bash', input }] })).status).toBe(202)
    await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), { timeout: 5_000 }).toBe(true)
    const escaped = await hostPidInFileSoon(pidFile)
    expect(escaped).toBeGreaterThan(0)
    try {
      expect(isRunning(escaped)).toBe(true)
      await server.close()
      await expect.poll(() => isRunning(escaped), { timeout: 2_000 }).toBe(false)
    } finally {
      killAll([escaped])
    }
  })

  it('does not wait for an open schedule to be closed: the stop is prompt, and the schedule runs at the next start', async () => {
    server = await startTestServer()
    const opened = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's1', createSession: {}, calls: [], open: true })
    expect(opened.status).toBe(202)
    // Behind the open schedule: it runs once the open one has ended.
    const queued = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's1', createSession: {}, calls: [{ id: 'c1', name: 'Sleep', input: { ms: 1 } }] })
    const started = performance.now()
    await server.close()
    expect(performance.now() - started).toBeLessThan(1_000)

    server = await startTestServer({ dataDir: server.dataDir })
    expect((await server.json<ScheduleReply>('GET', `/schedules/${opened.body.scheduleId}?wait=5`)).body.status).toBe('completed')
    const after = await server.json<ScheduleReply>('GET', `/schedules/${queued.body.scheduleId}?wait=5`)
    expect(after.body.calls[0]).toMatchObject({ id: 'c1', status: 'succeeded' })
  })

  it('answers a held ?wait request with the schedule as it stands instead of dropping it', async () => {
    server = await startTestServer({ tools: builtinTools() })
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    const { scheduleId } = await startSleeper(server, 'c1', false)
    const held = server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=30`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = performance.now()
    await server.close()
    const reply = await held
    expect(performance.now() - started).toBeLessThan(3_000)
    expect([reply.status, reply.body.status, reply.body.calls[0]?.status]).toEqual([200, 'running', 'running'])
  })
})
