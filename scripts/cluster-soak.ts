/**
 * `npm run soak:cluster`: rounds of faults under a three-node cluster on a private PostgreSQL,
 * each node a child process on 127.0.0.1 with counted fixture tools (test/support). Each round
 * makes a session on a random node and gives it, through random nodes, a call that runs until
 * told, a queued call and a call that waits for approval; then one fault, at random: SIGKILL of
 * the owner, SIGSTOP of it past its lease (then SIGCONT), SIGTERM of it, or a restart of
 * PostgreSQL. A node that went down is started again on its data directory once the round is
 * over, so that another node takes its session over. The approval is
 * answered on a random node and the running call let go. Checked every round, as the cluster
 * suite does: every call ends in a terminal state, none ran twice, a call running at a kill, a
 * pause or a stop ends `interrupted` (one running through a PostgreSQL restart succeeds), and
 * every node streams the session's events numbered 1..N.
 * SOAK_ROUNDS sets the rounds (default 100); SOAK_LEASE_MS the lease (default 2000).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply, Session } from '../src/contracts/api.js'
import { readAllEvents, spawnCrashServer, type CrashChild } from '../test/support/crash-child.js'
import { runKey, runsByCall } from '../test/support/crash-tools.js'
import { startPrivatePostgres, type PrivatePostgres } from '../test/support/private-postgres.js'
import { until } from '../test/support/until.js'

const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 100)
const LEASE_MS = Number(process.env.SOAK_LEASE_MS ?? 2_000)
const NAMES = ['a', 'b', 'c']
const FAULTS = ['kill', 'pause', 'stop', 'postgres'] as const
type Fault = (typeof FAULTS)[number]

interface Slot {
  readonly name: string
  readonly dataDir: string
  server: CrashChild
}

interface Tally {
  rounds: number
  calls: number
  ranTwice: number
  unended: number
  gaps: number
  wrongInterrupts: number
  readonly faults: Record<Fault, number>
  readonly takeoverMs: number[]
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T
const alive = (slot: Slot): boolean => slot.server.process.exitCode === null && slot.server.process.signalCode === null

async function startSlot(name: string, dataDir: string, databaseUrl: string, markerDir: string, workspace: string): Promise<CrashChild> {
  const env = { CRASH_NODE_ID: name, CRASH_LEASE_MS: String(LEASE_MS), CRASH_WORKSPACE: workspace }
  return spawnCrashServer(dataDir, markerDir, { databaseUrl, env })
}

async function json<T>(slot: Slot, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  for (;;) {
    const reply = await slot.server.json<T>(method, route, body).catch(() => ({ status: 0, body: undefined as T }))
    // 503 while a session moves or PostgreSQL restarts: the client retries, as a real one would.
    if (reply.status !== 503 && reply.status !== 0) return reply
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function ended(slots: readonly Slot[], scheduleId: string): Promise<ScheduleReply> {
  return until(
    async () => {
      const slot = pick(slots.filter(alive))
      const reply = await json<ScheduleReply>(slot, 'GET', `/schedules/${scheduleId}`)
      return reply.body.status === 'completed' || reply.body.status === 'cancelled' ? reply.body : undefined
    },
    `schedule ${scheduleId} to end`,
    6 * LEASE_MS + 20_000,
    100,
  )
}

async function round(index: number, slots: Slot[], postgres: PrivatePostgres, databaseUrl: string, markerDir: string, workspace: string, tally: Tally): Promise<void> {
  const sessionId = `soak-${index}`
  const live = slots.filter(alive)
  const owner = pick(live)
  const release = path.join(workspace, `release-${index}`)
  writeFileSync(path.join(workspace, `queued-${index}.txt`), 'x')
  expect((await json(owner, 'POST', '/sessions', { id: sessionId, permissionMode: 'default', interactive: true })).status, 201, 'session created')
  const post = async (calls: object[]): Promise<string> => (await json<ScheduleAcceptedReply>(pick(live), 'POST', '/schedules', { sessionId, calls })).body.scheduleId
  const running = await post([{ id: 'runs', name: 'WaitForFile', input: { path: release } }])
  const queued = await post([{ id: 'queued', name: 'Read', input: { file_path: `queued-${index}.txt` } }])
  const asking = await post([{ id: 'asks', name: 'Edit', input: { file_path: `asks-${index}.txt` } }])
  await until(async () => ((await json<ScheduleReply>(pick(live), 'GET', `/schedules/${running}`)).body.calls[0]?.status === 'running' ? true : undefined), 'the call to run', 10_000)
  const fault = pick(FAULTS)
  tally.faults[fault]++
  const faultAt = Date.now()
  await inflict(fault, owner, postgres)
  writeFileSync(release, 'go')
  // The others take the session over; the node that went down comes back only after the round.
  const up = slots.filter(alive)
  const request = await until(
    async () => (await json<{ requests: PermissionRequestRecord[] }>(pick(up), 'GET', '/permissions?status=pending')).body.requests.find((r) => r.callId === 'asks' && r.sessionId === sessionId),
    'the approval',
    6 * LEASE_MS + 20_000,
    100,
  )
  expect((await json(pick(up), 'POST', `/permissions/${request.id}`, { decision: 'allow' })).status, 200, 'approval answered')
  const outcomes = await Promise.all([running, queued, asking].map((id) => ended(slots, id)))
  tally.takeoverMs.push(Date.now() - faultAt)
  const statuses = outcomes.map((schedule) => schedule.calls[0]?.status)
  tally.calls += 3
  if (statuses.some((status) => status !== 'succeeded' && status !== 'interrupted')) tally.unended++
  // A call running when its owner died, paused past its lease or stopped ends interrupted; a PostgreSQL restart leaves it running.
  const interruptedByFault = fault !== 'postgres'
  if (interruptedByFault !== (statuses[0] === 'interrupted') || statuses.slice(1).some((status) => status !== 'succeeded')) tally.wrongInterrupts++
  const runs = runsByCall(markerDir)
  for (const id of ['runs', 'queued', 'asks']) if ((runs.get(runKey(sessionId, id))?.length ?? 0) > 1) tally.ranTwice++
  const last = (await json<Session>(pick(up), 'GET', `/sessions/${sessionId}`)).body.lastEventId
  for (const slot of up) {
    const frames = await readAllEvents(slot.server.url, sessionId, last, 15_000)
    if (frames.some((frame, position) => frame.id !== position + 1) || frames.length < last) tally.gaps++
  }
  if (!alive(owner)) owner.server = await startSlot(owner.name, owner.dataDir, databaseUrl, markerDir, workspace)
  tally.rounds++
}

async function inflict(fault: Fault, owner: Slot, postgres: PrivatePostgres): Promise<void> {
  if (fault === 'kill') await owner.server.kill()
  else if (fault === 'stop') {
    owner.server.process.kill('SIGTERM')
    await new Promise((resolve) => owner.server.process.once('exit', resolve))
  } else if (fault === 'pause') {
    owner.server.process.kill('SIGSTOP')
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS + 1_000))
    owner.server.process.kill('SIGCONT')
  } else {
    await postgres.restart('fast')
  }
}

function expect(actual: unknown, wanted: unknown, what: string): void {
  if (actual !== wanted) throw new Error(`${what}: ${String(actual)}, not ${String(wanted)}`)
}

const made: string[] = []
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolexec-${prefix}-`))
  made.push(dir)
  return dir
}

async function main(): Promise<void> {
  const postgres = await startPrivatePostgres({ fsync: true })
  const slots: Slot[] = []
  try {
    const databaseUrl = await postgres.createDatabase('soak')
    const markerDir = tempDir('soak-runs')
    const workspace = tempDir('soak-workspace')
    for (const name of NAMES) {
      const dataDir = tempDir(`soak-${name}`)
      slots.push({ name, dataDir, server: await startSlot(name, dataDir, databaseUrl, markerDir, workspace) })
    }
    const tally: Tally = { rounds: 0, calls: 0, ranTwice: 0, unended: 0, gaps: 0, wrongInterrupts: 0, faults: { kill: 0, pause: 0, stop: 0, postgres: 0 }, takeoverMs: [] }
    const started = Date.now()
    for (let index = 0; index < ROUNDS; index++) {
      await round(index, slots, postgres, databaseUrl, markerDir, workspace, tally)
      if ((index + 1) % 10 === 0) console.log(`${index + 1} rounds, ${((Date.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(tally.faults)}`)
    }
    const sorted = [...tally.takeoverMs].sort((a, b) => a - b)
    const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
    console.log(`${tally.rounds} rounds (${JSON.stringify(tally.faults)}), ${tally.calls} calls in ${((Date.now() - started) / 1000).toFixed(0)} s, lease ${LEASE_MS} ms`)
    console.log(`ran twice: ${tally.ranTwice}; not ended: ${tally.unended}; interrupted wrongly or not: ${tally.wrongInterrupts}; streams with a gap or a duplicate: ${tally.gaps}`)
    console.log(`from the fault to every schedule of the round ended: p50 ${(at(50) / 1000).toFixed(1)} s, p99 ${(at(99) / 1000).toFixed(1)} s`)
    if (tally.ranTwice + tally.unended + tally.wrongInterrupts + tally.gaps > 0) process.exitCode = 1
  } finally {
    for (const slot of slots) {
      slot.server.process.kill('SIGCONT')
      await slot.server.kill()
    }
    await postgres.stop()
    for (const dir of made) rmSync(dir, { recursive: true, force: true })
  }
}

await main()
