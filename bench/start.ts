/**
 * `npm run bench:start`: how long the one who starts the server waits. In each round, side by
 * side: `node -e 0` (Node alone, the floor), `toolexec --help` compiled, the compiled server
 * (`node dist/main.js`) until GET /healthz answers, and `npm start` (the TypeScript source
 * through tsx) until the same. Each start gets a fresh data directory (an empty SQLite file,
 * its migrations run) and the default sandbox mode, as a first start would. Targets: --help
 * <= 300 ms, compiled start <= 600 ms, npm start <= 1.5 s (medians). The compiled start's
 * phases (its debug line, LOG_LEVEL=debug) are printed beside, medians of the rounds.
 * BENCH_START_ROUNDS sets the rounds (default 7). dist/ is built first when a source is newer.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { median } from './support/stats.js'

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 7)
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const COMPILED = path.join(ROOT, 'dist', 'main.js')
const START_TIMEOUT_MS = 60_000

interface Started {
  readonly ms: number
  readonly phases?: Record<string, number> | undefined
}

/** The newest modification time of the .ts files under `dir`. */
function newestSource(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) return newestSource(full)
      return entry.name.endsWith('.ts') ? statSync(full).mtimeMs : 0
    }),
  )
}

/** Written by every build that changed something, and touched by this bench after its own. */
const BUILD_INFO = path.join(ROOT, 'dist', '.tsbuildinfo')

function buildWhenStale(): void {
  const built = statSync(COMPILED, { throwIfNoEntry: false }) === undefined ? 0 : (statSync(BUILD_INFO, { throwIfNoEntry: false }) ?? statSync(COMPILED)).mtimeMs
  if (built >= newestSource(path.join(ROOT, 'src'))) return
  console.log('building dist/ (npm run build) ...')
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
  // tsc rewrites nothing when no source changed in content (a checkout's touch): the build info then tells when it last looked.
  const now = new Date()
  utimesSync(BUILD_INFO, now, now)
}

/** Runs a command to its exit; its wall time in ms. */
function timeExit(command: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, { cwd: ROOT, stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))))
  })
}

/**
 * Starts the server with `command`, waits for its start line, then for GET /healthz: the time
 * from the spawn to that answer. Stops it (its process group) before returning.
 */
async function timeStart(command: string, args: readonly string[]): Promise<Started> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-start-'))
  const env = { ...process.env, PORT: '0', TOOLEXEC_DATA_DIR: dataDir, TOOLEXEC_WORKSPACE: dataDir, LOG_LEVEL: 'debug', TOOLEXEC_LOG_FORMAT: 'json' }
  const started = performance.now()
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const lines = readLog(child.stdout)
  try {
    const url = await lines.url
    const answer = await fetch(`${url}/healthz`)
    if (answer.status !== 200) throw new Error(`/healthz answered ${answer.status}`)
    await answer.arrayBuffer()
    return { ms: performance.now() - started, phases: lines.phases }
  } finally {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
}

interface ServerLog {
  /** The URL of the start line. */
  readonly url: Promise<string>
  /** The debug line of the start's phases, logged just after it (none from a server that logs none). */
  readonly phases: Record<string, number> | undefined
}

function readLog(stdout: NodeJS.ReadableStream): ServerLog {
  let phases: Record<string, number> | undefined
  const url = new Promise<string>((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`no start line within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS)
    const reader = createInterface({ input: stdout })
    reader.on('line', (line) => {
      const entry = parsed(line)
      if (entry?.msg === 'start phases') phases = entry.phases as Record<string, number>
      if (entry?.msg !== 'toolexec listening') return
      clearTimeout(timeout)
      resolve(String(entry.url))
    })
    reader.on('close', () => {
      clearTimeout(timeout)
      reject(new Error('the server exited before its start line'))
    })
  })
  return {
    url,
    get phases() {
      return phases
    },
  }
}

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined
  }
}

interface Row {
  readonly label: string
  readonly ms: number[]
  readonly targetMs?: number | undefined
}

function report(row: Row, floor: number): string {
  const sorted = [...row.ms].sort((a, b) => a - b)
  const mid = median(sorted)
  const figures = `min ${fmt(sorted[0] ?? Number.NaN)}  median ${fmt(mid)}  max ${fmt(sorted.at(-1) ?? Number.NaN)}`
  const over = row.targetMs === undefined ? '' : `  (+${fmt(mid - floor)} over node -e 0)`
  const verdict = row.targetMs === undefined ? '' : `  target <= ${row.targetMs} ms ${mid <= row.targetMs ? 'PASS' : 'MISS'}`
  return `${row.label.padEnd(30)} ${figures}${over}${verdict}`
}

const fmt = (ms: number): string => `${ms.toFixed(0).padStart(5)} ms`

function phaseMedians(runs: readonly Started[]): string {
  const names = [...new Set(runs.flatMap((run) => Object.keys(run.phases ?? {})))]
  if (names.length === 0) return 'compiled start phases:         none logged'
  return `compiled start phases (medians): ${names.map((name) => `${name} ${median(runs.map((run) => run.phases?.[name] ?? 0)).toFixed(0)}`).join(', ')} ms`
}

buildWhenStale()
// One start of each, untimed: the page cache and tsx's cache as every later start finds them.
await timeStart('node', [COMPILED])
await timeStart('npm', ['start', '--silent'])
const floor: number[] = []
const help: number[] = []
const compiled: Started[] = []
const npmStart: Started[] = []
for (let round = 0; round < ROUNDS; round++) {
  floor.push(await timeExit('node', ['-e', '0']))
  help.push(await timeExit('node', [COMPILED, '--help']))
  compiled.push(await timeStart('node', [COMPILED]))
  npmStart.push(await timeStart('npm', ['start', '--silent']))
}
const floorMs = median(floor)
console.log(`${ROUNDS} rounds, load average ${os.loadavg()[0]?.toFixed(2)} on ${os.availableParallelism()} cores`)
console.log(report({ label: 'node -e 0 (the floor)', ms: floor }, floorMs))
console.log(report({ label: 'toolexec --help (compiled)', ms: help, targetMs: 300 }, floorMs))
console.log(report({ label: 'compiled start to /healthz', ms: compiled.map((run) => run.ms), targetMs: 600 }, floorMs))
console.log(report({ label: 'npm start to /healthz', ms: npmStart.map((run) => run.ms), targetMs: 1_500 }, floorMs))
console.log(phaseMedians(compiled))
