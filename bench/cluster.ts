/**
 * `npm run bench:cluster`: the real server as a cluster of 1, 2 and 3 nodes on one private
 * PostgreSQL (fsync on), each node a child process, driven by 50 closed-loop clients whose
 * sessions are spread over the nodes: a client creates its session on one node (the owner),
 * posts its schedules to the next and reads its stream from the one before, so that with two
 * or three nodes every call is passed on to its owner and every result crosses to another
 * node's stream. Per cluster size it prints calls/s, PostgreSQL's CPU per call (all its
 * processes, from /proc, over the measured window), and the cross-node event latency: from
 * the owner's commit of a ToolCallResult (its `at`) to its arrival on another node's stream.
 * Beside ours, per size, the floor: as many floor nodes (support/floor-cluster-child.ts) on
 * their own database of the same server, driven by the same clients the same way, each doing
 * only what any cluster on one database must (group commits fenced by the session's lease,
 * one NOTIFY per commit, other nodes' streams read from the table on wake-ups, a request for
 * another node's session passed on to it over HTTP). Ours and the floor are up together and
 * measured in alternating rounds, so that a change of the machine's load hits both alike; each
 * figure is printed for both, with ours/floor, and each target is checked both ways.
 * Then, on three nodes, the failover time: the owner of a session is killed with SIGKILL and
 * a client posts to another node until the session runs there again (target: within the
 * lease time + 2 s). On 2 cores the nodes share the CPU with PostgreSQL and the clients: the
 * calls/s are not a cluster's, its PostgreSQL CPU per call is what bounds one.
 * BENCH_SECONDS sets the measured time per size and cluster (default 10); BENCH_LEASE_MS the
 * lease (5000); BENCH_SIZES the sizes (1,2,3); BENCH_FAILOVER=0 leaves the failover out;
 * BENCH_PG_STATEMENTS=1 prints, per size, PostgreSQL's top statements of ours and of the floor;
 * BENCH_PROFILE=<dir> writes CPU profiles of our nodes there (support/profile-summary.ts reads them).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Pool } from 'undici'
import { childScript, startChild, type ChildTarget } from './support/child-process.js'
import { runClosedLoop } from './support/client-loop.js'
import { poolFor, ToolexecClient } from './support/http-clients.js'
import { scheduleBody } from './support/noop-tool.js'
import { postgresCpuReader } from './support/postgres-cpu.js'
import { STATEMENT_SETTINGS, statementsProbe } from './support/postgres-statements.js'
import { formatRate, percentile } from './support/stats.js'
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from '../test/support/private-postgres.js'

const CLIENTS = 50
const WINDOW_MS = Number(process.env.BENCH_SECONDS ?? 10) * 1000
const WARMUP_MS = 2_000
const LEASE_MS = Number(process.env.BENCH_LEASE_MS ?? 5_000)
const SIZES = (process.env.BENCH_SIZES ?? '1,2,3').split(',').map(Number)
const STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1'
const PROFILE_DIR = process.env.BENCH_PROFILE

const ROUNDS = 5
/** Each round's clients start from idle: the first calls of a round are left out of it (as bench:http does). */
const ROUND_RAMP_MS = 1_000
/** The floor's targets against ours: a design that pays at most a quarter more than the least. */
const RATIO_TARGET = 1.25

interface Node {
  readonly child: ChildTarget
  readonly pool: Pool
  readonly dataDir: string
}

/** `script` is toolexec-child.ts (ours: a data dir, then the URL) or floor-cluster-child.ts (the floor: the URL). */
async function startNodes(count: number, url: string, prefix: string, script = 'toolexec-child.ts'): Promise<Node[]> {
  const nodes: Node[] = []
  for (let index = 0; index < count; index++) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-cluster-'))
    const args = script === 'toolexec-child.ts' ? [dataDir, url] : [url]
    const cpuProfileDir = script === 'toolexec-child.ts' ? PROFILE_DIR : undefined
    const child = await startChild(childScript(script), { args, env: { BENCH_NODE_ID: `${prefix}-${index}`, BENCH_LEASE_MS: String(LEASE_MS) }, cpuProfileDir })
    nodes.push({ child, pool: poolFor(child.url, CLIENTS), dataDir })
  }
  return nodes
}

async function stopNodes(nodes: readonly Node[]): Promise<void> {
  for (const node of nodes) {
    await node.pool.close()
    await node.child.stop().catch(() => undefined)
    rmSync(node.dataDir, { recursive: true, force: true })
  }
}

interface Figures {
  readonly callsPerSecond: number
  readonly postgresCpuPerCallUs: number
  readonly crossNodeMs: number[]
}

/** Ours or the floor, of one size, with its clients; what it measured so far. */
interface Cluster {
  readonly nodes: readonly Node[]
  readonly clients: readonly ToolexecClient[]
  readonly tally: { calls: number; made: number; windowMs: number; postgresMs: number; crossNodeMs: number[] }
  measuring: boolean
}

async function startCluster(server: PrivatePostgres, size: number, kind: 'ours' | 'floor'): Promise<Cluster> {
  const url = await server.createDatabase(`toolexec_bench_${kind}_${size}`)
  const nodes = await startNodes(size, url, `${kind === 'ours' ? 'n' : 'floor'}${size}`, kind === 'ours' ? 'toolexec-child.ts' : 'floor-cluster-child.ts')
  const at = (index: number): Node => nodes[index % size] as Node
  const cluster: Cluster = { nodes, clients: [], tally: { calls: 0, made: 0, windowMs: 0, postgresMs: 0, crossNodeMs: [] }, measuring: false }
  // Milliseconds from a result's commit on its owner to its arrival on another node's stream.
  const arrived = (at: string): void => {
    if (cluster.measuring && size > 1) cluster.tally.crossNodeMs.push(Date.now() - Date.parse(at))
  }
  // Created on its owner, posted to the next node, streamed from the node before the owner: with two nodes the poster, with three a third one.
  const clients = Array.from({ length: CLIENTS }, (_, i) => new ToolexecClient(at(i + 1).pool, at(i + size - 1).child.url, `bench_${i}`, { createOn: at(i).pool, onResult: arrived }))
  Object.assign(cluster, { clients })
  await Promise.all(clients.map((client) => client.connect()))
  return cluster
}

async function stopCluster(cluster: Cluster | undefined): Promise<void> {
  for (const client of cluster?.clients ?? []) client.close()
  await stopNodes(cluster?.nodes ?? [])
}

/** After `rampMs`, counts `windowMs` of calls, PostgreSQL's CPU and the cross-node latencies into the cluster's tally. */
async function measure(cluster: Cluster, cpu: (() => number) | undefined, rampMs: number, windowMs: number): Promise<void> {
  const at = (ms: number, what: () => void): Promise<void> => new Promise((resolve) => setTimeout(() => resolve(what()), ms))
  let before = 0
  let after = 0
  const marks = Promise.all([
    at(rampMs, () => {
      before = cpu?.() ?? 0
      cluster.measuring = windowMs > 0
    }),
    at(rampMs + windowMs, () => {
      after = cpu?.() ?? 0
      cluster.measuring = false
    }),
  ])
  const report = await runClosedLoop(cluster.clients, { warmupMs: rampMs, durationMs: windowMs })
  await marks
  cluster.tally.calls += report.calls
  cluster.tally.made += report.totalCalls
  cluster.tally.windowMs += windowMs
  cluster.tally.postgresMs += after - before
}

const figuresOf = ({ tally }: Cluster): Figures => ({
  callsPerSecond: (tally.calls / tally.windowMs) * 1000,
  postgresCpuPerCallUs: (tally.postgresMs / tally.calls) * 1000,
  crossNodeMs: [...tally.crossNodeMs].sort((a, b) => a - b),
})

interface SizeFigures {
  readonly nodes: number
  readonly ours: Figures
  readonly floor: Figures
}

/**
 * Ours and the floor of one size, each on its own database of the one server, up together and
 * measured in turn, round after round, so that a change of the machine's load hits both alike;
 * PostgreSQL's CPU is the whole server's over each one's windows (the other one idle).
 */
async function measureSize(server: PrivatePostgres, size: number): Promise<SizeFigures> {
  const cpu = postgresCpuReader(path.join(server.dir, 'data'))
  let ours: Cluster | undefined
  let floor: Cluster | undefined
  try {
    ours = await startCluster(server, size, 'ours')
    floor = await startCluster(server, size, 'floor')
    for (const cluster of [ours, floor]) await measure(cluster, cpu, WARMUP_MS, 0)
    const statements = STATEMENTS ? await Promise.all(['ours', 'floor'].map((kind) => statementsProbe(server.urlOf(`toolexec_bench_${kind}_${size}`)))) : []
    for (const probe of statements) await probe.start()
    const made = [ours.tally.made, floor.tally.made]
    for (let round = 0; round < ROUNDS; round++) {
      for (const cluster of [ours, floor]) await measure(cluster, cpu, ROUND_RAMP_MS, WINDOW_MS / ROUNDS)
    }
    for (const [index, probe] of statements.entries()) {
      console.log(`         ${index === 0 ? 'ours' : 'floor'} (WAL is the server's, of both):`)
      await probe.report(([ours, floor][index] as Cluster).tally.made - (made[index] as number))
      await probe.close()
    }
    return { nodes: size, ours: figuresOf(ours), floor: figuresOf(floor) }
  } finally {
    await stopCluster(ours)
    await stopCluster(floor)
  }
}

/** Kills the owner of a session with SIGKILL; the time until another node runs a call of it. */
async function failoverMs(server: PrivatePostgres): Promise<number> {
  const url = await server.createDatabase('toolexec_bench_failover')
  const nodes = await startNodes(3, url, 'f')
  const [owner, other] = nodes as [Node, Node, Node]
  try {
    const created = await owner.pool.request({ path: '/sessions', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'failover' }) })
    await created.body.text()
    process.kill(owner.child.pid as number, 'SIGKILL')
    const killed = performance.now()
    for (let n = 0; ; n++) {
      const reply = await other.pool.request({ path: '/schedules', method: 'POST', headers: { 'content-type': 'application/json' }, body: scheduleBody('failover', `f${n}`, n) })
      await reply.body.text()
      if (reply.statusCode === 202) return performance.now() - killed
      if (performance.now() - killed > LEASE_MS + 30_000) throw new Error(`no node took the session over: last answer ${reply.statusCode}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    await stopNodes(nodes.slice(1))
    await owner.pool.close()
    rmSync(owner.dataDir, { recursive: true, force: true })
  }
}

const passOrMiss = (met: boolean): string => (met ? 'PASS' : 'MISS')
const p99Of = (figures: Figures): number => percentile(figures.crossNodeMs, 99)

function crossNode(figures: Figures): string {
  const latencies = figures.crossNodeMs
  return latencies.length === 0 ? 'none' : `p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${p99Of(figures).toFixed(0)} ms over ${latencies.length} results`
}

function printSize({ nodes, ours, floor }: SizeFigures, oneNode: SizeFigures | undefined): void {
  const scaled = oneNode === undefined ? '' : `, ${(ours.callsPerSecond / oneNode.ours.callsPerSecond).toFixed(2)} x one node`
  const cpuRatio = ours.postgresCpuPerCallUs / floor.postgresCpuPerCallUs
  console.log(
    `${nodes} node${nodes > 1 ? 's' : ' '}: ours ${formatRate(ours.callsPerSecond).padStart(7)} calls/s${scaled}; floor ${formatRate(floor.callsPerSecond)} calls/s; ours/floor ${(ours.callsPerSecond / floor.callsPerSecond).toFixed(2)}`,
  )
  console.log(`         PostgreSQL CPU/call: ours ${ours.postgresCpuPerCallUs.toFixed(0)} µs, floor ${floor.postgresCpuPerCallUs.toFixed(0)} µs, ours/floor ${cpuRatio.toFixed(2)}`)
  console.log(
    `           target <= 400 µs: ours ${passOrMiss(ours.postgresCpuPerCallUs <= 400)}, floor ${passOrMiss(floor.postgresCpuPerCallUs <= 400)}; target ours/floor <= ${RATIO_TARGET}: ${passOrMiss(cpuRatio <= RATIO_TARGET)}`,
  )
  if (nodes === 1) return
  const p99Ratio = p99Of(ours) / p99Of(floor)
  console.log(`         cross-node event latency: ours ${crossNode(ours)}; floor ${crossNode(floor)}; p99 ours/floor ${p99Ratio.toFixed(2)}`)
  console.log(
    `           target p99 < 50 ms: ours ${passOrMiss(p99Of(ours) < 50)}, floor ${passOrMiss(p99Of(floor) < 50)}; target ours/floor <= ${RATIO_TARGET}: ${passOrMiss(p99Ratio <= RATIO_TARGET)}`,
  )
}

async function main(): Promise<void> {
  if (postgresBinDir() === undefined) {
    console.log('bench:cluster needs PostgreSQL (initdb and pg_ctl on PATH or in /usr/lib/postgresql/*/bin)')
    return
  }
  console.log(`machine: ${os.cpus().length} cores, node ${process.version}, load average ${(os.loadavg()[0] ?? 0).toFixed(1)} at start`)
  console.log(
    `${CLIENTS} clients; per cluster size, ours and the floor each ${WARMUP_MS / 1000} s warm-up, then ${ROUNDS} alternating rounds of ${ROUND_RAMP_MS / 1000} s ramp + ${WINDOW_MS / ROUNDS / 1000} s measured, ${WINDOW_MS / 1000} s measured each; lease ${LEASE_MS} ms`,
  )
  const server = await startPrivatePostgres({ fsync: true, settings: STATEMENTS ? STATEMENT_SETTINGS : [] })
  const stop = (): void => {
    void server.stop().finally(() => process.exit(130))
  }
  process.once('SIGINT', stop)
  try {
    let oneNode: SizeFigures | undefined
    for (const size of SIZES) {
      const figures = await measureSize(server, size)
      printSize(figures, oneNode)
      oneNode ??= figures
    }
    if (process.env.BENCH_FAILOVER === '0') return
    const failover = await failoverMs(server)
    console.log(`failover after SIGKILL of the owner: ${(failover / 1000).toFixed(2)} s (target < lease + 2 s = ${(LEASE_MS + 2_000) / 1000} s: ${passOrMiss(failover < LEASE_MS + 2_000)})`)
  } finally {
    process.off('SIGINT', stop)
    await server.stop()
  }
  console.log(`load average at end: ${(os.loadavg()[0] ?? 0).toFixed(1)}`)
}

await main()
