/**
 * Grep against GNU grep: a generated tree of 20,000 text files (about 210 MB, cached under the
 * temp directory between runs) searched for the same literal by `grep -rn` and by our Grep
 * handler (content mode, -n, no head_limit, output collected), alternating in one process;
 * `rg -n` (ripgrep) too when it is installed. Target: grep_time / ours_time >= 1.0 (ours at
 * least as fast as GNU grep). BENCH_ROUNDS sets the rounds (default 7).
 *
 * Beside them, the floor: one Node thread that only opens, reads (one readSync into a reused
 * buffer) and closes every file of the tree, its list given, no walk and no matching. Grep
 * cannot be faster than that on one core; its ratio to GNU grep says how much of a miss
 * is Node's cost of reading files, not Grep's.
 *
 * And the CPU time of a search, all threads counted (ours: process.cpuUsage around the call;
 * GNU grep: its rusage as `times` reports it after it ran), in rounds of their own after the
 * timed ones. On a machine whose cores are busy with other work, the elapsed ratio tends to the
 * CPU ratio: more threads then add no speed.
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ToolCallContext } from '../src/contracts/ports.js'
import { isBusinessFailure } from '../src/executor/errors.js'
import { closeGrepPool } from '../src/tools/grep/grep-pool.js'
import { createGrepTool } from '../src/tools/grep/index.js'
import { InMemoryFileStateStore } from '../src/tools/services.js'

const TREE_VERSION = 'v1'
const TOP_DIRS = 100
const SUB_DIRS = 4
const FILES_PER_DIR = 50
const FILE_BYTES = 10_500
const NEEDLE = 'needleXYZ'
const NEEDLE_RATE = 0.002
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const TARGET = 1.0
const WORDS = (
  'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau ' + 'upsilon phi chi psi omega const let function return import export async await'
).split(' ')

const treeRoot = path.join(os.tmpdir(), `toolexec-bench-grep-${TREE_VERSION}`)
const marker = path.join(treeRoot, '.complete')

/** A deterministic pseudo-random generator, so every run searches the same tree. */
function createRandom(seed: number): () => number {
  let state = seed
  return function next(): number {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    return state / 0x7fffffff
  }
}

function fileText(random: () => number): string {
  const lines: string[] = []
  let bytes = 0
  while (bytes < FILE_BYTES) {
    const words = Array.from({ length: 3 + Math.floor(random() * 12) }, () => WORDS[Math.floor(random() * WORDS.length)] as string)
    if (random() < NEEDLE_RATE) words.push(NEEDLE)
    const line = words.join(' ')
    lines.push(line)
    bytes += line.length + 1
  }
  return `${lines.join('\n')}\n`
}

/** Builds the tree once; the marker file records that it is complete. */
function ensureTree(): { files: number; bytes: number } {
  if (existsSync(marker)) return JSON.parse(readFileSync(marker, 'utf8')) as { files: number; bytes: number }
  process.stderr.write(`generating the grep tree under ${treeRoot} (once; kept for later runs)\n`)
  rmSync(treeRoot, { recursive: true, force: true })
  const random = createRandom(1)
  let files = 0
  let bytes = 0
  for (let top = 0; top < TOP_DIRS; top++) {
    for (let sub = 0; sub < SUB_DIRS; sub++) {
      const dir = path.join(treeRoot, `d${top}`, `e${sub}`)
      mkdirSync(dir, { recursive: true })
      for (let file = 0; file < FILES_PER_DIR; file++) {
        const text = fileText(random)
        writeFileSync(path.join(dir, `f${file}.txt`), text)
        files++
        bytes += text.length
      }
    }
  }
  const summary = { files, bytes }
  writeFileSync(marker, JSON.stringify(summary))
  return summary
}

interface Run {
  readonly ms: number
  readonly matches: number
}

function countLines(text: string, skipPrefix: RegExp): number {
  let count = 0
  for (const line of text.split('\n')) if (line !== '' && !skipPrefix.test(line)) count++
  return count
}

const HAS_RIPGREP = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0

function runGnuGrep(): Promise<Run> {
  return runCommand('grep', ['-rn', NEEDLE, treeRoot])
}

/** Like `grep -rn`: no .gitignore of ours applies to the tree, hidden files are searched, no colour or headings. */
function runRipgrep(): Promise<Run> {
  return runCommand('rg', ['-n', '--no-heading', '--color=never', NEEDLE, treeRoot])
}

function runCommand(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('error', reject)
    child.on('close', () => {
      const ms = performance.now() - started
      resolve({ ms, matches: countLines(Buffer.concat(chunks).toString('utf8'), /^$/) })
    })
  })
}

function benchContext(): ToolCallContext {
  return {
    callId: 'bench',
    sessionId: 'bench',
    toolName: 'Grep',
    signal: new AbortController().signal,
    workspace: treeRoot,
    permissionMode: 'default',
    permission: 'none',
    progress: () => undefined,
    services: { fileState: new InMemoryFileStateStore() },
  }
}

async function runOurGrep(): Promise<Run> {
  const tool = createGrepTool()
  const started = performance.now()
  const output = await tool.handler({ pattern: NEEDLE, path: treeRoot, output_mode: 'content', '-n': true }, benchContext())
  const ms = performance.now() - started
  if (isBusinessFailure(output)) throw new Error(output.message)
  return { ms, matches: countLines(output, /^\[Showing|^No matches/) }
}

function treeFiles(): string[] {
  const files: string[] = []
  for (let top = 0; top < TOP_DIRS; top++) {
    for (let sub = 0; sub < SUB_DIRS; sub++) {
      for (let file = 0; file < FILES_PER_DIR; file++) files.push(path.join(treeRoot, `d${top}`, `e${sub}`, `f${file}.txt`))
    }
  }
  return files
}

const floorBuffer = Buffer.allocUnsafe(1024 * 1024)

/** Opens, reads and closes every file: what reading costs Node on one thread. */
function runReadFloor(files: readonly string[]): Run {
  const started = performance.now()
  let bytes = 0
  for (const file of files) {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
    try {
      bytes += readSync(fd, floorBuffer, 0, floorBuffer.length, null)
    } finally {
      closeSync(fd)
    }
  }
  return { ms: performance.now() - started, matches: bytes }
}

/** User + system CPU ms of one GNU grep run, read from the shell's `times` (children's line). */
function gnuGrepCpuMs(): number {
  const script = `grep -rn ${NEEDLE} '${treeRoot}' >/dev/null; times`
  const lines = spawnSync('sh', ['-c', script], { encoding: 'utf8' }).stdout.trim().split('\n')
  const seconds = (lines[1] ?? '').split(/\s+/).map((field) => {
    const match = /^(\d+)m([\d.]+)s$/.exec(field)
    return match === null ? 0 : Number(match[1]) * 60 + Number(match[2])
  })
  return seconds.reduce((sum, value) => sum + value, 0) * 1000
}

async function ourCpuMs(): Promise<number> {
  const before = process.cpuUsage()
  await runOurGrep()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

/** Runs the comparison; returns the lines it prints. */
export async function benchGrep(): Promise<string[]> {
  const tree = ensureTree()
  const files = treeFiles()
  // Warm-up: the file cache, and the worker threads (which stay warm between calls).
  await runGnuGrep()
  await runOurGrep()
  if (HAS_RIPGREP) await runRipgrep()
  const gnu: Run[] = []
  const ours: Run[] = []
  const rg: Run[] = []
  const floor: Run[] = []
  for (let round = 0; round < ROUNDS; round++) {
    gnu.push(await runGnuGrep())
    ours.push(await runOurGrep())
    if (HAS_RIPGREP) rg.push(await runRipgrep())
    floor.push(runReadFloor(files))
  }
  const gnuCpu: number[] = []
  const oursCpu: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    gnuCpu.push(gnuGrepCpuMs())
    oursCpu.push(await ourCpuMs())
  }
  await closeGrepPool()
  const gnuMs = median(gnu.map((run) => run.ms))
  const oursMs = median(ours.map((run) => run.ms))
  const floorMs = median(floor.map((run) => run.ms))
  const ratio = gnuMs / oursMs
  const lines = [
    `grep tree:              ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB (${treeRoot})`,
    `pattern:                ${NEEDLE} (${gnu[0]?.matches ?? 0} matching lines by GNU grep, ${ours[0]?.matches ?? 0} by Grep${HAS_RIPGREP ? `, ${rg[0]?.matches ?? 0} by ripgrep` : ''})`,
    `GNU grep -rn:           ${gnuMs.toFixed(1)} ms (median of ${ROUNDS})`,
  ]
  if (HAS_RIPGREP) lines.push(`ripgrep rg -n:          ${median(rg.map((run) => run.ms)).toFixed(1)} ms (median of ${ROUNDS})`)
  lines.push(`Grep (content, -n):     ${oursMs.toFixed(1)} ms (median of ${ROUNDS})`, `ratio grep/ours:        ${ratio.toFixed(3)} (target >= ${TARGET}) ${ratio >= TARGET ? 'OK' : 'MISSED'}`)
  if (HAS_RIPGREP) lines.push(`ratio ripgrep/ours:     ${(median(rg.map((run) => run.ms)) / oursMs).toFixed(3)}`)
  lines.push(
    `floor, Node read only:  ${floorMs.toFixed(1)} ms (median of ${ROUNDS}; open, readSync, close of the ${files.length} files on one thread, no walk, no matching)`,
    `ratio grep/floor:       ${(gnuMs / floorMs).toFixed(3)}`,
    `CPU per search:         GNU grep ${mean(gnuCpu).toFixed(0)} ms, Grep ${mean(oursCpu).toFixed(0)} ms (user + system, all threads, mean of ${ROUNDS}); ratio ${(mean(gnuCpu) / mean(oursCpu)).toFixed(3)}`,
  )
  return lines
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchGrep()) console.log(line)
}
