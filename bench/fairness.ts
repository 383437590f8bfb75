/**
 * `npm run bench:fairness`: does one kind of work stall everyone else? The real server runs
 * in a child process, the load in another, and this process only probes, so that what it
 * measures is the server's latency, not its own.
 *
 * A. Replays: a session of 100,000 stored events; 50 SSE clients replay it from ?after=0,
 *    over and over, while a probe asks GET /healthz one request at a time. Its p50/p99/max
 *    beside the same probe with no load. Target: p99 < 100 ms under load.
 * B. Catastrophic Greps: one session runs schedules of 10 Greps of `(a+)+$` over lines of
 *    `aaa…ab` (each stopped at its matching limit), again and again, while another session
 *    schedules one Read at a time (POST, then GET ?wait= until it ends). Its p99 beside the
 *    same loop with no Grep running. Target: p99 < 50 ms under load.
 * C. A plain Grep beside catastrophic ones: one session runs a Grep at a time over a small
 *    tree (POST, then GET ?wait=), (1) while another session runs schedules of 10 Greps of
 *    `(a+)+$` again and again, (2) while six sessions each run one such Grep again and again.
 *    Its p50 under each load beside its p50 alone, measured just before in the same run.
 *    Target: p50 loaded <= 2x alone.
 * BENCH_PHASE_MS sets each phase's length, BENCH_REPLAY_CLIENTS the replaying clients,
 * BENCH_SCENARIOS=A (or B, C, or any of them together) runs only those scenarios.
 */
import { fork } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Pool } from 'undici'
import { childScript, startChild, type ChildTarget } from './support/child-process.js'
import { writeSessionEvents } from './support/replay-events.js'
import { percentile } from './support/stats.js'

const EVENTS = 100_000
const REPLAY_CLIENTS = Number(process.env.BENCH_REPLAY_CLIENTS ?? 50)
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 8_000)
const PROBE_GAP_MS = 10
const GREPS = 10
const REPLAYED = 'replayed_session'
const GREPPING = 'grep_session'
const READING = 'read_session'
const PLAIN = 'plain_grep_session'
const CATASTROPHIC_SESSIONS = 6
/** BENCH_SCENARIOS=A, =B or =C runs one of them; all by default. */
const SCENARIOS = process.env.BENCH_SCENARIOS ?? 'ABC'
const JSON_HEADERS = { 'content-type': 'application/json' }

interface Latencies {
  /** Sorted ascending, in milliseconds. */
  readonly ms: number[]
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `once` again and again for `durationMs` (a gap between runs), timing each. */
async function timeRepeatedly(durationMs: number, gapMs: number, once: () => Promise<void>): Promise<Latencies> {
  const ms: number[] = []
  const end = performance.now() + durationMs
  while (performance.now() < end) {
    const started = performance.now()
    await once()
    ms.push(performance.now() - started)
    if (gapMs > 0) await sleep(gapMs)
  }
  return { ms: ms.sort((a, b) => a - b) }
}

async function request(pool: Pool, method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const reply = await pool.request({ path: route, method, ...(body === undefined ? {} : { headers: JSON_HEADERS, body: JSON.stringify(body) }) })
  const text = await reply.body.text()
  return { status: reply.statusCode, json: text.length > 0 ? JSON.parse(text) : undefined }
}

async function expectOk(pool: Pool, method: 'GET' | 'POST', route: string, body?: unknown): Promise<unknown> {
  const { status, json } = await request(pool, method, route, body)
  if (status >= 300) throw new Error(`${method} ${route} answered ${status}: ${JSON.stringify(json)}`)
  return json
}

/** Posts a schedule and holds until it ends; returns its final reply. */
async function runSchedule(pool: Pool, sessionId: string, calls: unknown[]): Promise<{ status: string; calls: { status: string }[] }> {
  const accepted = (await expectOk(pool, 'POST', '/schedules', { sessionId, createSession: {}, calls })) as { scheduleId: string }
  for (;;) {
    const reply = (await expectOk(pool, 'GET', `/schedules/${accepted.scheduleId}?wait=60`)) as { status: string; calls: { status: string }[] }
    if (['completed', 'stopped', 'cancelled'].includes(reply.status)) return reply
  }
}

/** The replay load child, started and every client receiving. */
interface LoadReport {
  readonly replays: number
  readonly bytes: number
}

async function startReplayLoad(url: string): Promise<{ stop(): Promise<LoadReport> }> {
  const child = fork(childScript('replay-load-child.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const message = <T>(key: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (value: unknown): void => {
        if (typeof value !== 'object' || value === null || !(key in value)) return
        child.off('message', onMessage)
        resolve(value as T)
      }
      child.on('message', onMessage)
      child.once('exit', (code) => reject(new Error(`replay load exited with ${code} before ${key}`)))
    })
  const started = message<{ started: true }>('started')
  child.send({ start: { url, clients: REPLAY_CLIENTS, lastId: EVENTS } })
  await started
  return {
    stop: async () => {
      const report = message<{ report: LoadReport }>('report')
      child.send({ stop: true })
      return (await report).report
    },
  }
}

/** The average frame size of the replayed session, to turn the bytes the clients received into events. */
async function replayFrameBytes(server: ChildTarget): Promise<number> {
  const response = await fetch(`${server.url}/sessions/${REPLAYED}/events?after=${EVENTS - 1_000}`)
  const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader()
  if (reader === undefined) throw new Error('no body')
  let text = ''
  const decoder = new TextDecoder()
  while (!text.includes(`id: ${EVENTS}\n`)) {
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  await reader.cancel()
  return Buffer.byteLength(text.slice(0, text.indexOf('\n\n', text.indexOf(`id: ${EVENTS}\n`)) + 2)) / 1_000
}

function row(label: string, latencies: Latencies): string {
  const ms = latencies.ms
  const fmt = (value: number): string => value.toFixed(1).padStart(8)
  return `${label.padEnd(36)} n=${String(ms.length).padStart(5)}  p50 ${fmt(percentile(ms, 50))} ms  p99 ${fmt(percentile(ms, 99))} ms  max ${fmt(ms.at(-1) ?? Number.NaN)} ms`
}

function verdict(target: string, value: number, bound: number): string {
  return `${target.padEnd(36)} ${value.toFixed(1)} ms: ${value < bound ? 'PASS' : 'MISS'}`
}

async function scenarioReplays(server: ChildTarget, pool: Pool): Promise<void> {
  const probe = async (): Promise<void> => {
    await expectOk(pool, 'GET', '/healthz')
  }
  await timeRepeatedly(500, PROBE_GAP_MS, probe)
  const idle = await timeRepeatedly(PHASE_MS, PROBE_GAP_MS, probe)
  const load = await startReplayLoad(`${server.url}/sessions/${REPLAYED}/events?after=0`)
  const loadStarted = performance.now()
  const cpuStarted = await server.cpuMs()
  const loaded = await timeRepeatedly(PHASE_MS, PROBE_GAP_MS, probe)
  const { replays, bytes } = await load.stop()
  const loadSeconds = (performance.now() - loadStarted) / 1000
  const cpuSeconds = ((await server.cpuMs()) - cpuStarted) / 1000
  const frameBytes = await replayFrameBytes(server)
  console.log(`A. ${REPLAY_CLIENTS} clients replaying ${EVENTS.toLocaleString('en')} events each, over and over; GET /healthz one at a time, ${PROBE_GAP_MS} ms apart`)
  console.log(row('  /healthz, no load', idle))
  console.log(row('  /healthz, replays running', loaded))
  console.log(
    `  meanwhile: ${replays} whole replays, ${Math.round(bytes / frameBytes / loadSeconds).toLocaleString('en')} events/s sent to all clients together, server CPU ${((100 * cpuSeconds) / loadSeconds).toFixed(0)}% of a core`,
  )
  console.log(verdict('  target p99 < 100 ms under load', percentile(loaded.ms, 99), 100))
}

async function scenarioGreps(pool: Pool): Promise<void> {
  let n = 0
  const read = async (): Promise<void> => {
    const done = await runSchedule(pool, READING, [{ id: `read-${n++}`, name: 'Read', input: { file_path: 'small.txt' } }])
    if (done.calls[0]?.status !== 'succeeded') throw new Error(`Read ended ${JSON.stringify(done)}`)
  }
  await timeRepeatedly(500, PROBE_GAP_MS, read)
  const idle = await timeRepeatedly(PHASE_MS, PROBE_GAP_MS, read)

  let grepping = true
  let grepSchedules = 0
  let grepRound = 0
  const grepCalls = (): unknown[] =>
    Array.from({ length: GREPS }, (_, i) => ({ id: `grep-${grepRound}-${i}`, name: 'Grep', input: { pattern: '(a+)+$', path: 'catastrophic.txt', output_mode: 'count' } }))
  const greps = (async () => {
    while (grepping) {
      await runSchedule(pool, GREPPING, grepCalls())
      grepRound++
      grepSchedules++
    }
  })()
  // The first schedule's Greps have started before the clock runs.
  await sleep(200)
  const loaded = await timeRepeatedly(PHASE_MS, PROBE_GAP_MS, read)
  grepping = false
  await expectOk(pool, 'POST', `/sessions/${GREPPING}/abort`)
  await greps
  console.log(`B. ${GREPS} Greps of (a+)+$ over lines of a…ab in one session, again and again; in another, one Read at a time`)
  console.log(row('  Read (POST + wait), no Grep', idle))
  console.log(row('  Read (POST + wait), Greps running', loaded))
  console.log(`  Grep schedules finished meanwhile: ${grepSchedules}`)
  console.log(verdict('  target p99 < 50 ms under load', percentile(loaded.ms, 99), 50))
}

const catastrophicGrep = (id: string): unknown => ({ id, name: 'Grep', input: { pattern: '(a+)+$', path: 'catastrophic.txt', output_mode: 'count' } })

/** Sessions running schedules of catastrophic Greps again and again until stopped (each aborted then). */
function catastrophicLoad(pool: Pool, sessions: readonly string[], perSchedule: number): { schedules(): number; stop(): Promise<void> } {
  let going = true
  let schedules = 0
  const loops = sessions.map(async (sessionId) => {
    for (let round = 0; going; round++) {
      await runSchedule(
        pool,
        sessionId,
        Array.from({ length: perSchedule }, (_, i) => catastrophicGrep(`grep-${round}-${i}`)),
      )
      schedules++
    }
  })
  return {
    schedules: () => schedules,
    stop: async () => {
      going = false
      await Promise.all(sessions.map((sessionId) => expectOk(pool, 'POST', `/sessions/${sessionId}/abort`)))
      await Promise.all(loops)
    },
  }
}

function ratioVerdict(label: string, loaded: Latencies, alone: Latencies): string {
  const ratio = percentile(loaded.ms, 50) / percentile(alone.ms, 50)
  return `${label.padEnd(36)} p50 ${ratio.toFixed(2)}x alone (target <= 2x: ${ratio <= 2 ? 'PASS' : 'MISS'})`
}

async function scenarioPlainGrep(pool: Pool): Promise<void> {
  let n = 0
  const plainGrep = async (): Promise<void> => {
    const done = await runSchedule(pool, PLAIN, [{ id: `plain-${n++}`, name: 'Grep', input: { pattern: 'needle [0-9]+', path: 'plain', output_mode: 'content' } }])
    if (done.calls[0]?.status !== 'succeeded') throw new Error(`plain Grep ended ${JSON.stringify(done)}`)
  }
  const phaseMs = PHASE_MS / 2
  const loadedBy = async (sessions: readonly string[], perSchedule: number): Promise<{ alone: Latencies; loaded: Latencies; schedules: number }> => {
    await timeRepeatedly(300, PROBE_GAP_MS, plainGrep)
    const alone = await timeRepeatedly(phaseMs, PROBE_GAP_MS, plainGrep)
    const load = catastrophicLoad(pool, sessions, perSchedule)
    // The first schedules' Greps have started (and run long) before the clock runs.
    await sleep(1_000)
    const loaded = await timeRepeatedly(phaseMs, PROBE_GAP_MS, plainGrep)
    const schedules = load.schedules()
    await load.stop()
    return { alone, loaded, schedules }
  }
  console.log(`C. A Grep of needle [0-9]+ over 40 small files at a time in one session, alone and while catastrophic Greps run in others`)
  const one = await loadedBy([`${GREPPING}_c`], GREPS)
  console.log(row('  plain Grep (POST + wait), alone', one.alone))
  console.log(row(`  ..., ${GREPS} Greps of (a+)+$ in 1 session`, one.loaded))
  console.log(`  catastrophic schedules finished meanwhile: ${one.schedules}`)
  const sessions = Array.from({ length: CATASTROPHIC_SESSIONS }, (_, i) => `${GREPPING}_c${i + 1}`)
  const six = await loadedBy(sessions, 1)
  console.log(row('  plain Grep (POST + wait), alone', six.alone))
  console.log(row(`  ..., 1 Grep of (a+)+$ in each of ${CATASTROPHIC_SESSIONS}`, six.loaded))
  console.log(`  catastrophic schedules finished meanwhile: ${six.schedules}`)
  console.log(ratioVerdict(`  C1 (${GREPS} in 1 session)`, one.loaded, one.alone))
  console.log(ratioVerdict(`  C2 (1 in each of ${CATASTROPHIC_SESSIONS} sessions)`, six.loaded, six.alone))
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-fairness-'))
  let server: ChildTarget | undefined
  let pool: Pool | undefined
  try {
    const stored = await writeSessionEvents(dataDir, REPLAYED, EVENTS, 1_000)
    if (stored !== EVENTS) throw new Error(`stored ${stored} events, wanted ${EVENTS}`)
    // 30 a's then a b: `(a+)+$` backtracks through 2^30 ways of splitting each line.
    writeFileSync(path.join(dataDir, 'catastrophic.txt'), `${'a'.repeat(30)}b\n`.repeat(1_000))
    writeFileSync(path.join(dataDir, 'small.txt'), 'one\ntwo\nthree\n')
    mkdirSync(path.join(dataDir, 'plain'))
    for (let i = 0; i < 40; i++) writeFileSync(path.join(dataDir, 'plain', `file-${i}.txt`), `line one\nneedle ${i}\n${'filler text\n'.repeat(50)}`)
    server = await startChild(childScript('toolexec-child.ts'), { args: [dataDir], env: { BENCH_BUILTIN_TOOLS: '1' } })
    // Enough for the six catastrophic sessions' waiting GETs and the probe.
    pool = new Pool(server.url, { connections: 16 })
    console.log(`machine: ${os.cpus().length} cores, node ${process.version}; each phase ${PHASE_MS / 1000} s; server, load and probe in separate processes`)
    if (SCENARIOS.includes('A')) await scenarioReplays(server, pool)
    if (SCENARIOS.includes('B')) await scenarioGreps(pool)
    if (SCENARIOS.includes('C')) await scenarioPlainGrep(pool)
  } finally {
    await pool?.close()
    await server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
