/**
 * The sandbox's cost: a no-op command (`true`) through the Bash tool confined by bubblewrap
 * against the same unconfined, alternating in one process (both through the executor, with
 * the workspace writable as for an approved call). Target: the confined one at most 10 ms
 * over the unconfined one (medians). Skipped, saying why, where no sandbox can start.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { BackgroundTaskRegistry } from '../src/executor/background-tasks.js'
import { createExecutor, type Executor } from '../src/executor/executor.js'
import { FsArtifactStore } from '../src/storage/fs-artifact-store.js'
import type { BashCommandOutput } from '../src/tools/bash/bash-output.js'
import { createBashTool } from '../src/tools/bash/index.js'
import { bwrapArguments, DEFAULT_SANDBOX_SETTINGS, INSIDE_PREFIX } from '../src/tools/bash/sandbox.js'
import { probeSandbox, type SandboxStatus } from '../src/tools/bash/sandbox-probe.js'
import { ShellTaskStore } from '../src/tools/bash/shell-tasks.js'
import { InMemoryToolRegistry } from '../src/tools/registry.js'
import { createDenyingBroker } from '../src/permissions/brokers.js'
import { createModePermissionService } from '../src/permissions/mode-permission-service.js'

const ROUNDS = Number(process.env['BENCH_SANDBOX_ROUNDS'] ?? 40)
const TARGET_MS = 10

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

function executorWith(sandbox: SandboxStatus, dataDir: string): Executor {
  const backgroundTasks = new BackgroundTaskRegistry()
  return createExecutor({
    permissions: createModePermissionService(),
    broker: createDenyingBroker(),
    registry: new InMemoryToolRegistry([createBashTool({ sandbox })]),
    artifacts: new FsArtifactStore({ dataDir }),
    backgroundTasks,
    services: { backgroundTasks, shellTasks: new ShellTaskStore() },
  })
}

async function timeNoOp(executor: Executor, workspace: string, id: string, confined: boolean): Promise<number> {
  const started = performance.now()
  const result = await executor.execute({ id, name: 'Bash', input: { command: 'true' } }, { sessionId: 'bench', workspace, permissionMode: 'bypassPermissions', emit: () => undefined })
  const ms = performance.now() - started
  const output = result.output as BashCommandOutput | undefined
  if (output?.exitCode !== 0 || output.confined !== confined) throw new Error(`no-op failed: ${JSON.stringify(result.modelContent).slice(0, 300)}`)
  return ms
}

/** The floor: bwrap with the same options running `bash -c true`, against `bash -c true`, with no toolexec. */
function rawFloor(workspace: string): { bash: number; bwrap: number } {
  const [bwrap, ...options] = bwrapArguments({ workspace, cwd: workspace, writes: 'workspace', settings: DEFAULT_SANDBOX_SETTINGS })
  const bash: number[] = []
  const confined: number[] = []
  const time = (command: string, args: string[]): number => {
    const started = performance.now()
    spawnSync(command, args, { stdio: 'ignore' })
    return performance.now() - started
  }
  for (let round = 0; round < ROUNDS; round++) {
    bash.push(time('bash', ['-c', 'true']))
    confined.push(time(bwrap ?? 'bwrap', [...options, ...INSIDE_PREFIX, 'true']))
  }
  return { bash: median(bash), bwrap: median(confined) }
}

/** Runs the comparison; returns the lines it prints. */
export async function benchSandbox(): Promise<string[]> {
  const confinedStatus = probeSandbox('auto')
  if (!confinedStatus.confined) return [`sandbox:                skipped, ${confinedStatus.reason ?? 'no sandbox here'}`]
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-sandbox-ws-'))
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-sandbox-data-'))
  try {
    const confined = executorWith(confinedStatus, dataDir)
    const open = executorWith(probeSandbox('off'), dataDir)
    // Warm both paths (module loading, page cache) before timing.
    await timeNoOp(confined, workspace, 'warm-c', true)
    await timeNoOp(open, workspace, 'warm-o', false)
    const confinedMs: number[] = []
    const openMs: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      openMs.push(await timeNoOp(open, workspace, `o${round}`, false))
      confinedMs.push(await timeNoOp(confined, workspace, `c${round}`, true))
    }
    const over = median(confinedMs) - median(openMs)
    const floor = rawFloor(workspace)
    return [
      `for scale, no toolexec: bash -c true ${floor.bash.toFixed(1)} ms, in bwrap ${floor.bwrap.toFixed(1)} ms (+${(floor.bwrap - floor.bash).toFixed(1)} ms: namespaces and mounts alone)`,
      `no-op Bash unconfined:  ${median(openMs).toFixed(1)} ms (median of ${ROUNDS})`,
      `no-op Bash confined:    ${median(confinedMs).toFixed(1)} ms (median of ${ROUNDS}, bubblewrap)`,
      `sandbox overhead:       ${over.toFixed(1)} ms per command (target <= ${TARGET_MS} ms) ${over <= TARGET_MS ? 'OK' : 'MISSED'}`,
    ]
  } finally {
    rmSync(workspace, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchSandbox()) console.log(line)
}
