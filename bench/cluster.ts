/**
 * `npm run bench:cluster`: the real server as a cluster of 1, 2 and 3 nodes on one private
 * PostgreSQL (fsync on), each node a child process, driven by 50 closed-loop clients whose
 * sessions are spread over the nodes: a client creates its session on one node (the owner),
 * posts its schedules to the next and reads its stream from the one before, so that with two
 * or three nodes every call is passed on to its owner and every result crosses to another
 * node's stream. Per cluster size it prints calls/s, PostgreSQL's CPU per call (all its
 * processes, from /proc, over the measured window), and the cross-node event latency: from
 * the owner's commit of a ToolCallResult (its `at`) to its arrival on another node's stream.
 * Then, on three nodes, the failover time: the owner of a session is killed with SIGKILL and
 * a client posts to another node until the session runs there again (target: within the
 * lease time + 2 s). On 2 cores the nodes share the CPU with PostgreSQL and the clients: the
 * calls/s are not a cluster's, its PostgreSQL CPU per call is what bounds one.
 * BENCH_SECONDS sets the measured time per size (default 10); BENCH_LEASE_MS the lease (5000);
 * BENCH_PG_STATEMENTS=1 prints, per size, PostgreSQL's top statements and its WAL per call.
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

interface Node {
  readonly child: ChildTarget
  readonly pool: Pool
  readonly dataDir: string
}

async function startNodes(count: number, url: string, prefix: string): Promise<Node[]> {
  const nodes: Node[] = []
  for (let index = 0; index < count; index++) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-cluster-'))
    const child = await startChild(childScript('toolexec-child.ts'), { args: [dataDir, url], env: { BENCH_NODE_ID: `${prefix}-${index}`, BENCH_LEASE_MS: String(LEASE_MS) } })
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

interface SizeFigures {
  readonly nodes: number
  readonly callsPerSecond: number
  readonly postgresCpuPerCallUs: number
  readonly crossNodeMs: number[]
}

async function measureSize(server: PrivatePostgres, size: number): Promise<SizeFigures> {
  const url = await server.createDatabase(`toolexec_bench_cluster_${size}`)
  const cpu = postgresCpuReader(path.join(server.dir, 'data'))
  const nodes = await startNodes(size, url, `n${size}`)
  const statements = STATEMENTS ? await statementsProbe(url) : undefined
  const at = (index: number): Node => nodes[index % size] as Node
  // Milliseconds from a result's commit on its owner to its arrival on another node's stream.
  const crossNodeMs: number[] = []
  let measuring = false
  const arrived = (at: string): void => {
    if (measuring && size > 1) crossNodeMs.push(Date.now() - Date.parse(at))
  }
  // Created on its owner, posted to the next node, streamed from the node before the owner: with two nodes the poster, with three a third one.
  const clients = Array.from({ length: CLIENTS }, (_, i) => new ToolexecClient(at(i + 1).pool, at(i + size - 1).child.url, `bench_${i}`, { createOn: at(i).pool, onResult: arrived }))
  try {
    await Promise.all(clients.map((client) => client.connect()))
    await runClosedLoop(clients, { warmupMs: WARMUP_MS, durationMs: 0 })
    measuring = true
    await statements?.start()
    const before = cpu?.() ?? 0
    const report = await runClosedLoop(clients, { warmupMs: 0, durationMs: WINDOW_MS })
    const postgresMs = (cpu?.() ?? 0) - before
    await statements?.report(report.totalCalls)
    return {
      nodes: size,
      callsPerSecond: report.callsPerSecond,
      postgresCpuPerCallUs: (postgresMs / report.totalCalls) * 1000,
      crossNodeMs: crossNodeMs.sort((a, b) => a - b),
    }
  } finally {
    for (const client of clients) client.close()
    await statements?.close()
    await stopNodes(nodes)
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

function printSize(figures: SizeFigures, oneNode: SizeFigures | undefined): void {
  const latencies = figures.crossNodeMs
  const cross = latencies.length === 0 ? 'none cross nodes' : `p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms over ${latencies.length} results`
  const p99 = latencies.length === 0 ? 0 : percentile(latencies, 99)
  const ratio = oneNode === undefined ? '' : `, ${(figures.callsPerSecond / oneNode.callsPerSecond).toFixed(2)} x one node`
  console.log(`${figures.nodes} node${figures.nodes > 1 ? 's' : ' '}: ${formatRate(figures.callsPerSecond).padStart(7)} calls/s${ratio}`)
  console.log(`         PostgreSQL CPU/call ${figures.postgresCpuPerCallUs.toFixed(0)} µs (target <= 400 µs: ${passOrMiss(figures.postgresCpuPerCallUs <= 400)})`)
  if (figures.nodes > 1) console.log(`         cross-node event latency ${cross} (target p99 < 50 ms: ${passOrMiss(p99 < 50)})`)
}

async function main(): Promise<void> {
  if (postgresBinDir() === undefined) {
    console.log('bench:cluster needs PostgreSQL (initdb and pg_ctl on PATH or in /usr/lib/postgresql/*/bin)')
    return
  }
  console.log(`machine: ${os.cpus().length} cores, node ${process.version}, load average ${(os.loadavg()[0] ?? 0).toFixed(1)} at start`)
  console.log(`${CLIENTS} clients, ${WARMUP_MS / 1000} s warm-up and ${WINDOW_MS / 1000} s measured per cluster size; lease ${LEASE_MS} ms`)
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
