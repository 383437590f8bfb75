/**
 * `npm run bench:http`: (a) a no-op tool call end to end through the real server (POST
 * /schedules -> its ToolCallResult on the session's SSE stream, everything persisted)
 * against (b) a bare fastify POST route taking the same TypeBox-validated body, and beside
 * them (c) the floor: the same round trip through the least any design must do to persist
 * a call (bench/support/floor-child.ts), which shows how much of the gap is ours. Each
 * target runs in its own child process and is driven by the same closed client loop at 50
 * concurrency; the measured windows alternate between them (all children stay up), so a
 * load change on the machine hits them alike; each window follows a 1 s unmeasured ramp.
 * Then (a) alone, fresh, with one client, for its latency. BENCH_SECONDS sets the measured
 * time per target (default 10);
 * BENCH_PROFILE=<dir> writes CPU profiles of the toolexec children there;
 * BENCH_STORE_TIMING=1 prints what each store method costs per call; BENCH_ONLY=latency runs
 * only the one-client latency part and BENCH_ONLY=postgres only (d) and (e) (below);
 * BENCH_FLOOR_NO_SQLITE=1 runs the floor storing nothing.
 * Beside them, (d): the same real server storing in PostgreSQL instead of SQLite, in the
 * same alternating rounds, against a private PostgreSQL server this run starts from the
 * system's binaries (test/support/private-postgres.ts, fsync on: it pays what a real server
 * pays) and removes at the end; its line adds the PostgreSQL server's own CPU per call (all
 * its processes, from /proc). Beside (d), (e): the floor storing in PostgreSQL (one prepared
 * statement per group commit), the least PostgreSQL CPU a persisted call can cost, against
 * which (d)'s is read. (d) and (e) each have a private server of their own, so that the
 * CPU per call over the whole run (autovacuum and checkpoints included) is each one's own. BENCH_POSTGRES=0 leaves
 * (d) and (e) out; they are left out, saying why, when PostgreSQL is not installed.
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
import { postgresCpuReader } from './support/postgres-cpu.js'
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from '../test/support/private-postgres.js'

const CONCURRENCY = 50
const WINDOW_MS = Number(process.env.BENCH_SECONDS ?? 10) * 1000
const ROUNDS = 5
const WARMUP_MS = 2_000
/**
 * Each round's clients start from idle: its first calls end only once a whole cohort of 50 has
 * gone through, which takes a latency (400-1000 ms for (d) on a loaded machine). Unmeasured, this
 * ramp would count against the slower targets and keep their long calls out of the latencies.
 */
const ROUND_RAMP_MS = 1_000
const LATENCY_WINDOW_MS = 5_000
const PROFILE_DIR = process.env.BENCH_PROFILE

interface Target {
  readonly child: ChildTarget
  readonly pool: Pool
  readonly clients: readonly LoopClient[]
  /** CPU the target's database server has used so far, in milliseconds, when it has its own. */
  readonly databaseCpuMs?: (() => number) | undefined
  /** The database server's CPU since the target started, background work included (read after close). */
  readonly databaseCpuSinceStart?: (() => number) | undefined
  /** Stops the clients and the child; checks what it persisted. */
  close(totalCalls: number): Promise<string>
}

interface Tally {
  calls: number
  windowMs: number
  cpuMs: number
  databaseCpuMs: number
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

/** A PostgreSQL database for a toolexec target, and the reader of its server's CPU. */
interface Database {
  readonly url: string
  readonly cpuMs: (() => number) | undefined
}

async function startToolexec(clientCount: number, script = 'toolexec-child.ts', database?: Database): Promise<Target> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-http-'))
  const profileDir = script === 'toolexec-child.ts' ? PROFILE_DIR : undefined
  const args = database === undefined ? [dataDir] : [dataDir, database.url]
  const child = await startChild(childScript(script), { args, cpuProfileDir: profileDir }).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  const pool = poolFor(child.url, clientCount)
  const clients = Array.from({ length: clientCount }, (_, i) => new ToolexecClient(pool, child.url, `bench_${i}`))
  await Promise.all(clients.map((client) => client.connect()))
  return {
    child,
    pool,
    clients,
    databaseCpuMs: database?.cpuMs,
    databaseCpuSinceStart: sinceNow(database?.cpuMs),
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
      const sent = stored.roundTrips === undefined ? '' : `; ${perCall(stored.roundTrips, totalCalls)} round trips and ${perCall(stored.statements ?? 0, totalCalls)} statements per call`
      return `${stored.succeededCalls} succeeded call records and ${stored.events} events persisted${walMb}${sent}`
    },
  }
}

function sinceNow(cpuMs: (() => number) | undefined): (() => number) | undefined {
  if (cpuMs === undefined) return undefined
  const start = cpuMs()
  return () => cpuMs() - start
}

const perCall = (count: number, calls: number): string => (count / calls).toFixed(2)

function printStoreTimings(timings: Record<string, MethodTiming>, calls: number): void {
  console.log(`store steps of ${calls} calls (wall time: a read until its answer, a commit until durable; a write is timed with its unit's commit):`)
  const used = Object.entries(timings)
    .filter(([, timing]) => timing.calls > 0)
    .sort((a, b) => b[1].ms - a[1].ms || b[1].calls - a[1].calls)
  for (const [name, timing] of used) console.log(`  ${name.padEnd(32)} ${storeStepCost(timing, calls)}`)
}

function storeStepCost(timing: MethodTiming, calls: number): string {
  const perCall = `${(timing.calls / calls).toFixed(2)}/call`
  if (timing.ms === 0) return perCall
  const each = (timing.ms * 1000) / timing.calls
  return `${perCall} x ${each.toFixed(1)} µs = ${((timing.ms * 1000) / calls).toFixed(0)} µs/call`
}

interface CpuSample {
  readonly serverMs: number
  readonly databaseMs: number
  readonly clientMs: number
}

/** The CPU used so far by the target, its database server and this load generator, taken `afterMs` from now. */
async function cpuSampleAfter(target: Target, afterMs: number): Promise<CpuSample> {
  await new Promise((resolve) => setTimeout(resolve, afterMs))
  const client = process.cpuUsage()
  const databaseMs = target.databaseCpuMs?.() ?? 0
  return { serverMs: await target.child.cpuMs(), databaseMs, clientMs: (client.user + client.system) / 1000 }
}

/** Drives the target for `warmupMs`, then counts `windowMs`; the CPU figures are the window's. */
async function measure(target: Target, tally: Tally, warmupMs: number, windowMs: number): Promise<void> {
  const samples = Promise.all([cpuSampleAfter(target, warmupMs), cpuSampleAfter(target, warmupMs + windowMs)])
  const report = await runClosedLoop(target.clients, { warmupMs, durationMs: windowMs })
  const [before, after] = await samples
  tally.calls += report.calls
  tally.windowMs += report.windowMs
  tally.cpuMs += after.serverMs - before.serverMs
  tally.databaseCpuMs += after.databaseMs - before.databaseMs
  tally.clientCpuMs += after.clientMs - before.clientMs
  tally.totalCalls += report.totalCalls
  tally.latenciesMs.push(...report.latenciesMs)
}

const emptyTally = (): Tally => ({ calls: 0, windowMs: 0, cpuMs: 0, databaseCpuMs: 0, clientCpuMs: 0, totalCalls: 0, latenciesMs: [] })
const rate = (tally: Tally): number => (tally.calls / tally.windowMs) * 1000
const microsPerCall = (ms: number, tally: Tally): string => ((ms / tally.calls) * 1000).toFixed(0)
const cpuPerCall = (tally: Tally, database = false): string =>
  `${microsPerCall(tally.cpuMs, tally)} µs server CPU/call, ${database ? `${microsPerCall(tally.databaseCpuMs, tally)} µs PostgreSQL CPU/call, ` : ''}${microsPerCall(tally.clientCpuMs, tally)} µs load-generator CPU/call`
const latency = (tally: Tally, digits: number): string => {
  const sorted = [...tally.latenciesMs].sort((a, b) => a - b)
  const at = (p: number): string => percentile(sorted, p).toFixed(digits)
  return `p50 ${at(50)} ms, p99 ${at(99)} ms, p99.9 ${at(99.9)} ms`
}

interface Measured {
  readonly tally: Tally
  readonly stored: string
  /** The target's database server's CPU over the whole run, per call made, in µs. */
  readonly databaseCpuPerCall?: number | undefined
}

interface SideBySide {
  readonly bare: Tally
  readonly ours: Measured
  readonly floor: Measured
  /** Undefined when (d) and (e) are left out. */
  readonly postgres: { readonly ours: Measured; readonly floor: Measured } | undefined
}

/** Warms each target up, then measures them in turn, round after round, and closes them. */
async function alternate(targets: readonly Target[]): Promise<Measured[]> {
  const tallies = targets.map(() => emptyTally())
  // The warm-up's calls are measured into the tally too, since every call made must be found stored.
  for (const [i, target] of targets.entries()) await measure(target, tallies[i] as Tally, WARMUP_MS, 0)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) await measure(target, tallies[i] as Tally, ROUND_RAMP_MS, WINDOW_MS / ROUNDS)
  }
  const measured: Measured[] = []
  for (const [i, target] of targets.entries()) {
    const tally = tallies[i] as Tally
    const stored = await target.close(tally.totalCalls)
    const databaseCpuMs = target.databaseCpuSinceStart?.()
    measured.push({ tally, stored, databaseCpuPerCall: databaseCpuMs === undefined ? undefined : (databaseCpuMs / tally.totalCalls) * 1000 })
  }
  return measured
}

async function sideBySide(postgres: PostgresDatabases | undefined): Promise<SideBySide> {
  const targets = [await startBare(), await startToolexec(CONCURRENCY), await startToolexec(CONCURRENCY, 'floor-child.ts')]
  if (postgres !== undefined) {
    targets.push(await startToolexec(CONCURRENCY, 'toolexec-child.ts', postgres.ours), await startToolexec(CONCURRENCY, 'floor-child.ts', postgres.floor))
  }
  const [bare, ours, floor, oursOnPostgres, floorOnPostgres] = await alternate(targets)
  if (bare === undefined || ours === undefined || floor === undefined) throw new Error('a target was not measured')
  const onPostgres = oursOnPostgres === undefined || floorOnPostgres === undefined ? undefined : { ours: oursOnPostgres, floor: floorOnPostgres }
  return { bare: bare.tally, ours, floor, postgres: onPostgres }
}

/** Two databases on one private PostgreSQL server: toolexec's (d) and the floor's (e). */
interface PostgresDatabases {
  readonly ours: Database
  readonly floor: Database
}

/** Why (d) is left out, or undefined when it runs. */
function postgresSkipped(): string | undefined {
  if (process.env.BENCH_POSTGRES === '0') return 'BENCH_POSTGRES=0'
  if (postgresBinDir() === undefined) return 'PostgreSQL is not installed (no initdb and pg_ctl on PATH or in /usr/lib/postgresql/*/bin)'
  return undefined
}

/**
 * Starts the private PostgreSQL servers of (d) and (e), one each, so that each one's CPU,
 * its autovacuum and checkpoints included, is its own target's; `stop` stops both, also on Ctrl-C.
 */
async function startPostgres(): Promise<{ databases: PostgresDatabases; stop: () => Promise<void> }> {
  const servers: PrivatePostgres[] = []
  const stop = async (): Promise<void> => {
    process.off('SIGINT', onInterrupt)
    await Promise.all(servers.map((server) => server.stop()))
  }
  const onInterrupt = (): void => {
    void stop().finally(() => process.exit(130))
  }
  process.once('SIGINT', onInterrupt)
  try {
    const database = async (name: string): Promise<Database> => {
      const server = await startPrivatePostgres({ fsync: true })
      servers.push(server)
      return { url: await server.createDatabase(name), cpuMs: postgresCpuReader(path.join(server.dir, 'data')) }
    }
    const [ours, floor] = await Promise.all([database('toolexec_bench_http'), database('toolexec_bench_floor')])
    return { databases: { ours, floor }, stop }
  } catch (error) {
    await stop()
    throw error
  }
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
  console.log(
    `${CONCURRENCY} clients; ${WARMUP_MS / 1000} s warm-up, then ${ROUNDS} alternating rounds of ${ROUND_RAMP_MS / 1000} s ramp + ${WINDOW_MS / ROUNDS / 1000} s measured each, ${WINDOW_MS / 1000} s measured per target`,
  )
  const skipped = postgresSkipped()
  const postgres = skipped === undefined ? await startPostgres() : undefined
  let measured: SideBySide
  try {
    measured = await sideBySide(postgres?.databases)
  } finally {
    await postgres?.stop()
  }
  const { bare, ours, floor } = measured
  const { single, stored: singleStored } = await oneClient()
  const ratio = rate(ours.tally) / rate(bare)
  const floorRatio = rate(floor.tally) / rate(bare)
  const p99 = percentile(
    [...single.latenciesMs].sort((a, b) => a - b),
    99,
  )
  console.log(`(b) bare fastify POST + TypeBox body:  ${formatRate(rate(bare)).padStart(7)} calls/s  (${cpuPerCall(bare)})`)
  console.log(`(a) toolexec no-op call -> SSE result: ${formatRate(rate(ours.tally)).padStart(7)} calls/s  (${cpuPerCall(ours.tally)}; ${ours.stored})`)
  console.log(`(c) floor: least persisted call -> SSE: ${formatRate(rate(floor.tally)).padStart(7)} calls/s  (${cpuPerCall(floor.tally)}; ${floor.stored})`)
  printPostgres(measured.postgres, ours.tally, skipped)
  console.log(`ratio (a)/(b): ${ratio.toFixed(3)}  (target >= 0.25: ${ratio >= 0.25 ? 'PASS' : 'MISS'})`)
  console.log(`ratio (c)/(b): ${floorRatio.toFixed(3)}  (the floor's own ratio)`)
  const ofFloor = ratio / floorRatio
  console.log(`ratio (a)/(c): ${ofFloor.toFixed(2)}  (ours against the floor; target >= 0.8: ${ofFloor >= 0.8 ? 'PASS' : 'MISS'})`)
  console.log(`(a) latency, 50 clients: ${latency(ours.tally, 2)}`)
  console.log(
    `(a) latency, 1 client:   ${latency(single, 3)} over ${single.latenciesMs.length} calls, ${formatRate(rate(single))} calls/s  (target p99 < 5 ms: ${p99 < 5 ? 'PASS' : 'MISS'}; ${singleStored})`,
  )
  console.log(`load average at end: ${(os.loadavg()[0] ?? 0).toFixed(1)}`)
}

function printPostgres(postgres: SideBySide['postgres'], sqlite: Tally | undefined, skipped: string | undefined): void {
  if (postgres === undefined) {
    console.log(`(d) toolexec on PostgreSQL, (e) floor on PostgreSQL: left out: ${skipped ?? 'not measured'}`)
    return
  }
  const { tally, stored } = postgres.ours
  const floor = postgres.floor.tally
  const p99 = percentile(
    [...tally.latenciesMs].sort((a, b) => a - b),
    99,
  )
  const databaseCpu = postgres.ours.databaseCpuPerCall ?? 0
  const floorDatabaseCpu = postgres.floor.databaseCpuPerCall ?? 0
  console.log(`(d) toolexec on PostgreSQL:            ${formatRate(rate(tally)).padStart(7)} calls/s  (${cpuPerCall(tally, true)}; ${stored})`)
  console.log(`(e) floor on PostgreSQL:               ${formatRate(rate(floor)).padStart(7)} calls/s  (${cpuPerCall(floor, true)}; ${postgres.floor.stored})`)
  console.log(`(d) latency, 50 clients: ${latency(tally, 2)}  (target p99 < 100 ms: ${passOrMiss(p99 < 100)})`)
  console.log(
    `(d) PostgreSQL CPU/call over the whole run (its vacuums and checkpoints too): ${databaseCpu.toFixed(0)} µs  (target <= 400 µs: ${passOrMiss(databaseCpu <= 400)}); the floor's (e): ${floorDatabaseCpu.toFixed(0)} µs, ours/floor ${(databaseCpu / floorDatabaseCpu).toFixed(2)}`,
  )
  if (sqlite === undefined) return
  const ofSqlite = rate(tally) / rate(sqlite)
  console.log(`ratio (d)/(a): ${ofSqlite.toFixed(3)}  (PostgreSQL against SQLite, same server; target >= 0.6: ${passOrMiss(ofSqlite >= 0.6)})`)
}

const passOrMiss = (met: boolean): string => (met ? 'PASS' : 'MISS')

/** BENCH_ONLY=latency: only the one-client latency run, for quick comparisons. */
async function latencyOnly(): Promise<void> {
  const { single, stored } = await oneClient()
  console.log(`(a) latency, 1 client:   ${latency(single, 3)} over ${single.latenciesMs.length} calls (${stored})`)
}

/** BENCH_ONLY=postgres: only (d) and (e), for what-if runs of PostgreSQL's settings (BENCH_POSTGRES_SQL). */
async function postgresOnly(): Promise<void> {
  const skipped = postgresSkipped()
  const postgres = skipped === undefined ? await startPostgres() : undefined
  if (postgres === undefined) return printPostgres(undefined, undefined, skipped)
  try {
    const { ours, floor } = postgres.databases
    const [oursMeasured, floorMeasured] = await alternate([await startToolexec(CONCURRENCY, 'toolexec-child.ts', ours), await startToolexec(CONCURRENCY, 'floor-child.ts', floor)])
    if (oursMeasured === undefined || floorMeasured === undefined) throw new Error('a target was not measured')
    printPostgres({ ours: oursMeasured, floor: floorMeasured }, undefined, undefined)
  } finally {
    await postgres.stop()
  }
}

const only = process.env.BENCH_ONLY
await (only === 'latency' ? latencyOnly() : only === 'postgres' ? postgresOnly() : main())
