/**
 * Bash output handling against the raw command: 1 GiB from `head -c N /dev/zero | tr '\0' a`
 * through our Bash tool (executor pipeline, the command writing into the artifact file itself,
 * its sha256, head and tail windows, progress) against the floor when every byte is kept:
 * `bash -c 'cmd > file'` on the same file system, with no toolexec at all. Rounds alternate in
 * one process. Target: our time at most 1.3 times the floor. For scale it also times
 * `bash -c 'cmd > /dev/null'`, which keeps nothing. BENCH_BASH_BYTES overrides the size,
 * BENCH_BASH_ROUNDS the number of rounds.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
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

const BYTES = Number(process.env['BENCH_BASH_BYTES'] ?? 1024 * 1024 * 1024)
const ROUNDS = Number(process.env['BENCH_BASH_ROUNDS'] ?? 5)
const TARGET_RATIO = 1.3
const COMMAND = `head -c ${BYTES} /dev/zero | tr '\\0' 'a'`

interface Run {
  readonly ms: number
  readonly peakRssGrowth: number
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

function runRaw(target: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn('bash', ['-c', `${COMMAND} > ${target}`], { stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve({ ms: performance.now() - started, peakRssGrowth: 0 })
      else reject(new Error(`raw command exited with ${code}`))
    })
  })
}

async function runTool(workspace: string, dataDir: string, round: number): Promise<Run> {
  const backgroundTasks = new BackgroundTaskRegistry()
  const executor = createExecutor({
    registry: new InMemoryToolRegistry([createBashTool()]),
    artifacts: new FsArtifactStore({ dataDir }),
    backgroundTasks,
    services: { backgroundTasks, shellTasks: new ShellTaskStore() },
  })
  const baseline = process.memoryUsage().rss
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 50)
  const started = performance.now()
  const result = await executor.execute(
    { id: `bench-${round}`, name: 'Bash', input: { command: COMMAND, timeout: 600_000 } },
    { sessionId: 'bench', workspace, permissionMode: 'bypassPermissions', emit: () => undefined },
  )
  const ms = performance.now() - started
  clearInterval(sampler)
  const output = result.output as BashCommandOutput | undefined
  if (output?.totalBytes !== BYTES || output.exitCode !== 0) throw new Error(`Bash run failed: ${JSON.stringify(result.modelContent).slice(0, 300)}`)
  if (BYTES > 256 * 1024 && output.persistedPath === undefined) throw new Error('the output was not streamed to an artifact')
  rmSync(path.join(dataDir, 'cli'), { recursive: true, force: true })
  return { ms, peakRssGrowth: peak - baseline }
}

/** Runs the comparison; returns the lines it prints. */
export async function benchBash(): Promise<string[]> {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-bash-ws-'))
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-bash-data-'))
  try {
    const raw: Run[] = []
    const tool: Run[] = []
    const toFile: Run[] = []
    const file = path.join(workspace, 'raw-output.bin')
    for (let round = 0; round < ROUNDS; round++) {
      raw.push(await runRaw('/dev/null'))
      tool.push(await runTool(workspace, dataDir, round))
      toFile.push(await runRaw(file))
      rmSync(file, { force: true })
    }
    const rawMs = median(raw.map((run) => run.ms))
    const toolMs = median(tool.map((run) => run.ms))
    const fileMs = median(toFile.map((run) => run.ms))
    const ratio = toolMs / fileMs
    const rss = Math.max(...tool.map((run) => run.peakRssGrowth)) / (1024 * 1024)
    const runs = (list: readonly Run[]): string => `median of ${ROUNDS}: ${list.map((run) => run.ms.toFixed(0)).join(', ')}`
    return [
      `bash command:           ${COMMAND} (${(BYTES / (1024 * 1024)).toFixed(0)} MiB)`,
      `floor, raw '... > file': ${fileMs.toFixed(0)} ms (${runs(toFile)})`,
      `Bash tool (artifact):   ${toolMs.toFixed(0)} ms (${runs(tool)})`,
      `for scale, raw '... > /dev/null': ${rawMs.toFixed(0)} ms (${runs(raw)}), keeping nothing`,
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
