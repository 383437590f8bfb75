/**
 * Bash output handling against the raw command: 1 GiB from `head -c N /dev/zero | tr '\0' a`
 * through our Bash tool (executor pipeline, the command writing into the artifact file itself,
 * its sha256, head and tail windows, progress) against the floor when every byte is kept:
 * `bash -c 'cmd > file'` on the same file system, with no toolexec at all. Rounds alternate in
 * one process. Target: our time at most 1.3 times the floor. Beside it: the floor followed by
 * `openssl dgst -sha256` of the file (the artifact records its sha256; OpenSSL uses the CPU's
 * SHA instructions, coreutils' sha256sum does not: the least a design that hashes after the
 * exit pays), CPU seconds of each (what the wall-clock ratio tends to when the other
 * core is busy), and `bash -c 'cmd > /dev/null'`, which keeps nothing. BENCH_BASH_BYTES overrides the size,
 * BENCH_BASH_ROUNDS the number of rounds.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { BackgroundTaskRegistry } from '../src/executor/background-tasks.js'
import { createExecutor } from '../src/executor/executor.js'
import { FsArtifactStore } from '../src/storage/fs-artifact-store.js'
import type { BashCommandOutput } from '../src/tools/bash/bash-output.js'
import { createBashTool } from '../src/tools/bash/index.js'
import { ShellTaskStore } from '../src/tools/bash/shell-tasks.js'
import { InMemoryToolRegistry } from '../src/tools/registry.js'
import { createDenyingBroker } from '../src/permissions/brokers.js'
import { createModePermissionService } from '../src/permissions/mode-permission-service.js'

const BYTES = Number(process.env['BENCH_BASH_BYTES'] ?? 1024 * 1024 * 1024)
const ROUNDS = Number(process.env['BENCH_BASH_ROUNDS'] ?? 5)
const TARGET_RATIO = 1.3
const COMMAND = `head -c ${BYTES} /dev/zero | tr '\\0' 'a'`

interface Run {
  readonly ms: number
  /** CPU seconds of this process (its worker threads included) and of the children it reaped. */
  readonly cpuSeconds: number | undefined
  readonly peakRssGrowth: number
  /** For a Bash run: the command's own duration as it reports it, up to its exit. */
  readonly commandMs?: number | undefined
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

/** utime + stime + cutime + cstime of this process, from /proc (Linux); undefined elsewhere. */
function cpuSecondsSoFar(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // fields[0] is the state (field 3 of stat): utime..cstime are fields 14..17.
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0)
    return ticks / CLOCK_TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

/** Runs `work`, timing it on the wall clock and in CPU. */
async function measured(work: () => Promise<number>): Promise<Run> {
  const cpuBefore = cpuSecondsSoFar()
  const started = performance.now()
  const peakRssGrowth = await work()
  const ms = performance.now() - started
  const cpuAfter = cpuSecondsSoFar()
  return { ms, cpuSeconds: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore, peakRssGrowth }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

function runRaw(target: string, after = ''): Promise<Run> {
  return measured(
    () =>
      new Promise((resolve, reject) => {
        const child = spawn('bash', ['-c', `${COMMAND} > ${target}${after}`], { stdio: 'ignore' })
        child.on('error', reject)
        child.on('exit', (code) => (code === 0 ? resolve(0) : reject(new Error(`raw command exited with ${code}`))))
      }),
  )
}

async function runTool(workspace: string, dataDir: string, round: number): Promise<Run> {
  let commandMs: number | undefined
  const backgroundTasks = new BackgroundTaskRegistry()
  const executor = createExecutor({
    permissions: createModePermissionService(),
    broker: createDenyingBroker(),
    registry: new InMemoryToolRegistry([createBashTool()]),
    artifacts: new FsArtifactStore({ dataDir }),
    backgroundTasks,
    services: { backgroundTasks, shellTasks: new ShellTaskStore() },
  })
  const run = await measured(async () => {
    const baseline = process.memoryUsage().rss
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 50)
    const result = await executor.execute(
      { id: `bench-${round}`, name: 'Bash', input: { command: COMMAND, timeout: 600_000 } },
      { sessionId: 'bench', workspace, permissionMode: 'bypassPermissions', emit: () => undefined },
    )
    clearInterval(sampler)
    const output = result.output as BashCommandOutput | undefined
    if (output?.totalBytes !== BYTES || output.exitCode !== 0) throw new Error(`Bash run failed: ${JSON.stringify(result.modelContent).slice(0, 300)}`)
    if (BYTES > 256 * 1024 && output.persistedPath === undefined) throw new Error('the output was not streamed to an artifact')
    commandMs = output.durationMs
    return peak - baseline
  })
  rmSync(path.join(dataDir, 'cli'), { recursive: true, force: true })
  return { ...run, commandMs }
}

/** Runs the comparison; returns the lines it prints. */
export async function benchBash(): Promise<string[]> {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-bash-ws-'))
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-bash-data-'))
  try {
    const raw: Run[] = []
    const tool: Run[] = []
    const toFile: Run[] = []
    const hashedAfter: Run[] = []
    const file = path.join(workspace, 'raw-output.bin')
    const runFloor = async (): Promise<void> => {
      toFile.push(await runRaw(file))
      rmSync(file, { force: true })
    }
    for (let round = 0; round < ROUNDS; round++) {
      raw.push(await runRaw('/dev/null'))
      hashedAfter.push(await runRaw(file, ` && openssl dgst -sha256 ${file} > /dev/null`))
      rmSync(file, { force: true })
      // Which of the two goes first alternates, so neither always follows the other's gigabyte.
      if (round % 2 === 0) {
        tool.push(await runTool(workspace, dataDir, round))
        await runFloor()
      } else {
        await runFloor()
        tool.push(await runTool(workspace, dataDir, round))
      }
    }
    const rawMs = median(raw.map((run) => run.ms))
    const toolMs = median(tool.map((run) => run.ms))
    const fileMs = median(toFile.map((run) => run.ms))
    const ratio = toolMs / fileMs
    const rss = Math.max(...tool.map((run) => run.peakRssGrowth)) / (1024 * 1024)
    const runs = (list: readonly Run[]): string => `median of ${ROUNDS}: ${list.map((run) => run.ms.toFixed(0)).join(', ')}`
    const cpu = (list: readonly Run[]): number | undefined => (list.every((run) => run.cpuSeconds !== undefined) ? median(list.map((run) => run.cpuSeconds as number)) : undefined)
    const afterExit = tool.map((run) => run.ms - (run.commandMs ?? 0))
    const hashedMs = median(hashedAfter.map((run) => run.ms))
    const [toolCpu, fileCpu, hashedCpu] = [cpu(tool), cpu(toFile), cpu(hashedAfter)]
    const cpuLine =
      toolCpu === undefined || fileCpu === undefined || hashedCpu === undefined
        ? []
        : [
            `CPU (median):           Bash ${toolCpu.toFixed(2)} s, floor ${fileCpu.toFixed(2)} s (ratio ${(toolCpu / fileCpu).toFixed(2)}), floor + sha256 ${hashedCpu.toFixed(2)} s (ratio ${(hashedCpu / fileCpu).toFixed(2)})`,
            '                        the CPU ratio is what the wall-clock ratio tends to when no core is free',
          ]
    return [
      `bash command:           ${COMMAND} (${(BYTES / (1024 * 1024)).toFixed(0)} MiB)`,
      `floor, raw '... > file': ${fileMs.toFixed(0)} ms (${runs(toFile)})`,
      `Bash tool (artifact):   ${toolMs.toFixed(0)} ms (${runs(tool)})`,
      `  of which after the command's exit (the rest of the hash, head and tail, publishing): ${afterExit.map((ms) => ms.toFixed(0)).join(', ')} ms`,
      `floor + openssl's sha256 of the file after it: ${hashedMs.toFixed(0)} ms (${runs(hashedAfter)}), ${(hashedMs / fileMs).toFixed(2)} x the floor`,
      `for scale, raw '... > /dev/null': ${rawMs.toFixed(0)} ms (${runs(raw)}), keeping nothing`,
      ...cpuLine,
      `peak RSS growth:        ${rss.toFixed(1)} MB`,
      `Bash / floor:           ${ratio.toFixed(2)} (target <= ${TARGET_RATIO}) ${ratio <= TARGET_RATIO ? 'OK' : 'MISSED'}`,
    ]
  } finally {
    rmSync(workspace, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchBash()) console.log(line)
}
