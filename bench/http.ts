/**
 * `npm run bench:http`: (a) a no-op tool call end to end through the real server (POST
 * /schedules -> its ToolCallResult on the session's SSE stream, everything persisted)
 * against (b) a bare fastify POST route taking the same TypeBox-validated body, and beside
 * them (c) the floor: the same round trip through the least any design must do to persist
 * a call (bench/support/floor-child.ts), which shows how much of the gap is ours. Each
 * target runs in its own child process and is driven by the same closed client loop at 50
 * concurrency; the measured windows alternate between them (all children stay up), so a
 * load change on the machine hits them alike. Then (a) alone, fresh, with one client, for
 * its latency. BENCH_SECONDS sets the measured time per target (default 10);
 * BENCH_PROFILE=<dir> writes CPU profiles of the toolexec children there;
 * BENCH_STORE_TIMING=1 prints what each store method costs per call; BENCH_ONLY=latency runs
 * only the one-client latency part; BENCH_FLOOR_NO_SQLITE=1 runs the floor storing nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Pool } from 'undici'
import { runClosedLoop, type LoopClient } from './support/client-loop.js'
import { childScript, startChild, type ChildTarget } from './support/child-process.js'
import { BarePostClient, poolFor, ToolexecClient } from './support/http-clients.js'
import { formatRate, percentile } from './support/stats.js'
import type { MethodTiming } from './support/store-timing.js'

const CONCURRENCY = 50
const WINDOW_MS = Number(process.env.BENCH_SECONDS ?? 10) * 1000
const ROUNDS = 5
const WARMUP_MS = 2_000
const LATENCY_WINDOW_MS = 5_000
const PROFILE_DIR = process.env.BENCH_PROFILE

interface Target {
  readonly child: ChildTarget
  readonly pool: Pool
  readonly clients: readonly LoopClient[]
  /** Stops the clients and the child; checks what it persisted. */
  close(totalCalls: number): Promise<string>
}

interface Tally {
  calls: number
  windowMs: number
  cpuMs: number
  clientCpuMs: number
  totalCalls: number
  latenciesMs: number[]
}

async function startBare(): Promise<Target> {
  const child = await startChild(childScript('bare-fastify-child.ts'))
  const pool = poolFor(child.url, CONCURRENCY)
  const clients = Array.from({ length: CONCURRENCY }, (_, i) => new BarePostClient(pool, `bare_${i}`))
  return {
    child,
    pool,
    clients,
    close: async () => {
      await pool.close()
      await child.stop()
      return ''
    },
  }
}

async function startToolexec(clientCount: number, script = 'toolexec-child.ts'): Promise<Target> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-http-'))
  const profileDir = script === 'toolexec-child.ts' ? PROFILE_DIR : undefined
  const child = await startChild(childScript(script), { args: [dataDir], cpuProfileDir: profileDir })
  const pool = poolFor(child.url, clientCount)
  const clients = Array.from({ length: clientCount }, (_, i) => new ToolexecClient(pool, child.url, `bench_${i}`))
  await Promise.all(clients.map((client) => client.connect()))
  return {
    child,
    pool,
    clients,
    close: async (totalCalls) => {
      for (const client of clients) client.close()
      await pool.close()
      const { storeTimings, ...stored } = (await child.stop()) as Record<string, number> & { storeTimings?: Record<string, MethodTiming> }
      rmSync(dataDir, { recursive: true, force: true })
      if (storeTimings !== undefined) printStoreTimings(storeTimings, totalCalls)
      if (stored.succeededCalls !== totalCalls || stored.tool_calls !== totalCalls) {
        throw new Error(`persisted ${stored.succeededCalls} succeeded records of ${stored.tool_calls} calls, but ${totalCalls} calls were made`)
      }
      const walMb = stored.walPeakBytes === undefined ? '' : `; WAL peak ${(stored.walPeakBytes / (1024 * 1024)).toFixed(1)} MB`
      return `${stored.succeededCalls} succeeded call records and ${stored.events} events persisted${walMb}`
    },
  }
}

function printStoreTimings(timings: Record<string, MethodTiming>, calls: number): void {
  console.log(`store methods of ${calls} calls (wall time; transaction includes the statements inside it):`)
  for (const [name, timing] of Object.entries(timings).sort((a, b) => b[1].ms - a[1].ms).slice(0, 10)) {
    if (timing.calls === 0) continue
    const each = (timing.ms * 1000) / timing.calls
    console.log(`  ${name.padEnd(20)} ${(timing.calls / calls).toFixed(2)}/call x ${each.toFixed(1)} µs = ${((timing.ms * 1000) / calls).toFixed(0)} µs/call`)
  }
}

async function measure(target: Target, tally: Tally, warmupMs: number, windowMs: number): Promise<void> {
  const cpuBefore = await target.child.cpuMs()
  const clientBefore = process.cpuUsage()
  const report = await runClosedLoop(target.clients, { warmupMs, durationMs: windowMs })
  const client = process.cpuUsage(clientBefore)
  const cpuAfter = await target.child.cpuMs()
  tally.calls += report.calls
  tally.windowMs += report.windowMs
  tally.cpuMs += warmupMs === 0 ? cpuAfter - cpuBefore : 0
  tally.clientCpuMs += warmupMs === 0 ? (client.user + client.system) / 1000 : 0
  tally.totalCalls += report.totalCalls
  tally.latenciesMs.push(...report.latenciesMs)
}

const emptyTally = (): Tally => ({ calls: 0, windowMs: 0, cpuMs: 0, clientCpuMs: 0, totalCalls: 0, latenciesMs: [] })
const rate = (tally: Tally): number => (tally.calls / tally.windowMs) * 1000
const cpuPerCall = (tally: Tally): string =>
  `${((tally.cpuMs / tally.calls) * 1000).toFixed(0)} µs server CPU/call, ${((tally.clientCpuMs / tally.calls) * 1000).toFixed(0)} µs load-generator CPU/call`
const latency = (tally: Tally, digits: number): string => {
  const sorted = [...tally.latenciesMs].sort((a, b) => a - b)
  const at = (p: number): string => percentile(sorted, p).toFixed(digits)
  return `p50 ${at(50)} ms, p99 ${at(99)} ms, p99.9 ${at(99.9)} ms`
}

interface SideBySide {
  readonly bare: Tally
  readonly ours: Tally
  readonly floor: Tally
  readonly stored: string
  readonly floorStored: string
}

async function sideBySide(): Promise<SideBySide> {
  const bare = emptyTally()
  const ours = emptyTally()
  const floor = emptyTally()
  const bareTarget = await startBare()
  const oursTarget = await startToolexec(CONCURRENCY)
  const floorTarget = await startToolexec(CONCURRENCY, 'floor-child.ts')
  await measure(bareTarget, emptyTally(), WARMUP_MS, 0)
  await measure(oursTarget, ours, WARMUP_MS, 0)
  await measure(floorTarget, floor, WARMUP_MS, 0)
  for (let round = 0; round < ROUNDS; round++) {
    await measure(bareTarget, bare, 0, WINDOW_MS / ROUNDS)
    await measure(oursTarget, ours, 0, WINDOW_MS / ROUNDS)
    await measure(floorTarget, floor, 0, WINDOW_MS / ROUNDS)
  }
  await bareTarget.close(0)
  const stored = await oursTarget.close(ours.totalCalls)
  const floorStored = await floorTarget.close(floor.totalCalls)
  return { bare, ours, floor, stored, floorStored }
}

async function oneClient(): Promise<{ single: Tally; stored: string }> {
  const single = emptyTally()
  const target = await startToolexec(1)
  await measure(target, single, WARMUP_MS, 0)
  await measure(target, single, 0, LATENCY_WINDOW_MS)
  return { single, stored: await target.close(single.totalCalls) }
}

async function main(): Promise<void> {
  const load = os.loadavg()[0] ?? 0
  console.log(`machine: ${os.cpus().length} cores, node ${process.version}, load average ${load.toFixed(1)} at start`)
  console.log(`${CONCURRENCY} clients; ${WARMUP_MS / 1000} s warm-up, then ${ROUNDS} alternating rounds, ${WINDOW_MS / 1000} s measured per target`)
  const { bare, ours, floor, stored, floorStored } = await sideBySide()
  const { single, stored: singleStored } = await oneClient()
  const ratio = rate(ours) / rate(bare)
  const floorRatio = rate(floor) / rate(bare)
  const p99 = percentile([...single.latenciesMs].sort((a, b) => a - b), 99)
  console.log(`(b) bare fastify POST + TypeBox body:  ${formatRate(rate(bare)).padStart(7)} calls/s  (${cpuPerCall(bare)})`)
  console.log(`(a) toolexec no-op call -> SSE result: ${formatRate(rate(ours)).padStart(7)} calls/s  (${cpuPerCall(ours)}; ${stored})`)
  console.log(`(c) floor: least persisted call -> SSE: ${formatRate(rate(floor)).padStart(7)} calls/s  (${cpuPerCall(floor)}; ${floorStored})`)
  console.log(`ratio (a)/(b): ${ratio.toFixed(3)}  (target >= 0.25: ${ratio >= 0.25 ? 'PASS' : 'MISS'})`)
  console.log(`ratio (c)/(b): ${floorRatio.toFixed(3)}  (the floor's own ratio; (a)/(c): ${(ratio / floorRatio).toFixed(2)})`)
  console.log(`(a) latency, 50 clients: ${latency(ours, 2)}`)
  console.log(`(a) latency, 1 client:   ${latency(single, 3)} over ${single.latenciesMs.length} calls, ${formatRate(rate(single))} calls/s  (target p99 < 5 ms: ${p99 < 5 ? 'PASS' : 'MISS'}; ${singleStored})`)
  console.log(`load average at end: ${(os.loadavg()[0] ?? 0).toFixed(1)}`)
}

/** BENCH_ONLY=latency: only the one-client latency run, for quick comparisons. */
async function latencyOnly(): Promise<void> {
  const { single, stored } = await oneClient()
  console.log(`(a) latency, 1 client:   ${latency(single, 3)} over ${single.latenciesMs.length} calls (${stored})`)
}

await (process.env.BENCH_ONLY === 'latency' ? latencyOnly() : main())
