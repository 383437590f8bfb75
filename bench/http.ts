/**
 * `npm run bench:http`: (a) a no-op tool call end to end through the real server (POST
 * /schedules -> its ToolCallResult on the session's SSE stream, everything persisted)
 * against (b) a bare fastify POST route with the same TypeBox-validated body, both in a
 * child process and driven by the same closed client loop, side by side in one run.
 * Then (a) alone with one client for its latency. BENCH_SECONDS sets the measured window
 * (default 10); BENCH_PROFILE=<dir> writes a CPU profile of the toolexec child there.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runClosedLoop, type LoopReport } from './support/client-loop.js'
import { childScript, startChild, type ChildTarget } from './support/child-process.js'
import { BarePostClient, poolFor, ToolexecClient } from './support/http-clients.js'
import { formatRate, percentile } from './support/stats.js'

const CONCURRENCY = 50
const WINDOW_MS = Number(process.env.BENCH_SECONDS ?? 10) * 1000
const WARMUP_MS = 2_000
const LATENCY_WINDOW_MS = Math.max(3_000, WINDOW_MS / 2)
const PROFILE_DIR = process.env.BENCH_PROFILE

interface ToolexecRun {
  readonly loop: LoopReport
  readonly stored: Record<string, number>
}

async function benchBare(): Promise<LoopReport> {
  const child = await startChild(childScript('bare-fastify-child.ts'))
  const pool = poolFor(child.url, CONCURRENCY)
  try {
    const clients = Array.from({ length: CONCURRENCY }, (_, i) => new BarePostClient(pool, `bare_${i}`))
    return await runClosedLoop(clients, { warmupMs: WARMUP_MS, durationMs: WINDOW_MS })
  } finally {
    await pool.close()
    await child.stop()
  }
}

async function benchToolexec(clientCount: number, windowMs: number): Promise<ToolexecRun> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-http-'))
  let child: ChildTarget | undefined
  try {
    child = await startChild(childScript('toolexec-child.ts'), { args: [dataDir], cpuProfileDir: PROFILE_DIR })
    const pool = poolFor(child.url, clientCount)
    const clients = Array.from({ length: clientCount }, (_, i) => new ToolexecClient(pool, child?.url ?? '', `bench_${i}`))
    await Promise.all(clients.map((client) => client.connect()))
    const loop = await runClosedLoop(clients, { warmupMs: WARMUP_MS, durationMs: windowMs })
    for (const client of clients) client.close()
    await pool.close()
    const stored = (await child.stop()) as Record<string, number>
    child = undefined
    if (stored.succeededCalls !== loop.totalCalls || stored.tool_calls !== loop.totalCalls) {
      throw new Error(`persisted ${stored.succeededCalls} succeeded of ${stored.tool_calls} calls, but ${loop.totalCalls} were made`)
    }
    return { loop, stored }
  } finally {
    await child?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const seconds = WINDOW_MS / 1000
  console.log(`machine: ${os.cpus().length} cores, node ${process.version}; ${CONCURRENCY} clients, ${WARMUP_MS / 1000} s warm-up + ${seconds} s measured per target`)
  const bare = await benchBare()
  const ours = await benchToolexec(CONCURRENCY, WINDOW_MS)
  const single = await benchToolexec(1, LATENCY_WINDOW_MS)
  const ratio = ours.loop.callsPerSecond / bare.callsPerSecond
  const p50 = percentile(single.loop.latenciesMs, 50)
  const p99 = percentile(single.loop.latenciesMs, 99)
  console.log(`(b) bare fastify POST + TypeBox:   ${formatRate(bare.callsPerSecond)} calls/s (${bare.calls} in ${seconds} s)`)
  console.log(`(a) toolexec no-op call, SSE result: ${formatRate(ours.loop.callsPerSecond)} calls/s (${ours.loop.calls} in ${seconds} s; ${ours.stored.events} events, ${ours.stored.succeededCalls} succeeded records persisted)`)
  console.log(`ratio (a)/(b):                      ${ratio.toFixed(3)} (target >= 0.25) ${ratio >= 0.25 ? 'PASS' : 'MISS'}`)
  console.log(`(a) 50 clients latency:             p50 ${percentile(ours.loop.latenciesMs, 50).toFixed(2)} ms, p99 ${percentile(ours.loop.latenciesMs, 99).toFixed(2)} ms`)
  console.log(`(a) 1 client latency:               p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms over ${single.loop.latenciesMs.length} calls (target p99 < 5 ms) ${p99 < 5 ? 'PASS' : 'MISS'}`)
  console.log(`(a) 1 client rate:                  ${formatRate(single.loop.callsPerSecond)} calls/s`)
}

await main()
