/**
 * An executor with Bash (and whatever tools a test adds) over a fresh workspace and data
 * directory, with the background-task registry and shell-task store Bash's tools share.
 */
import { realpath, rm } from 'node:fs/promises'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import type { PermissionMode } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { BackgroundTaskRegistry } from '../../src/executor/background-tasks.js'
import { type Executor } from '../../src/executor/executor.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { ShellTaskStore } from '../../src/tools/bash/shell-tasks.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { tempDir } from './temp-dirs.js'
import { createTestExecutor } from './executor.js'

export interface CallOptions {
  readonly sessionId?: string
  readonly mode?: PermissionMode
  readonly signal?: AbortSignal
}

export interface ShellHarness {
  readonly workspace: string
  readonly dataDir: string
  readonly executor: Executor
  readonly backgroundTasks: BackgroundTaskRegistry
  readonly shellTasks: ShellTaskStore
  /** Every event the executor emitted, in order. */
  readonly events: ExecutorEvent[]
  /** Runs one call (session `s1`, bypassPermissions unless told otherwise). */
  call(name: string, input: Record<string, unknown>, options?: CallOptions): Promise<ToolExecutionResult>
  /** Cancels the background tasks of `sessionIds`, waits for them, and removes both directories. */
  close(sessionIds?: readonly string[]): Promise<void>
}

/** @example const h = await openShellHarness('taskstop', [createTaskStopTool()]) */
export async function openShellHarness(name: string, tools: readonly ToolEntry[] = []): Promise<ShellHarness> {
  const workspace = await realpath(await tempDir(`${name}-ws`))
  const dataDir = await tempDir(`${name}-data`)
  const backgroundTasks = new BackgroundTaskRegistry()
  const shellTasks = new ShellTaskStore()
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createBashTool(), ...tools]),
    artifacts: new FsArtifactStore({ dataDir }),
    backgroundTasks,
    services: { backgroundTasks, shellTasks },
  })
  const events: ExecutorEvent[] = []
  let callNumber = 0
  return {
    workspace,
    dataDir,
    executor,
    backgroundTasks,
    shellTasks,
    events,
    call: (toolName, input, options = {}) => {
      callNumber++
      const { sessionId = 's1', mode = 'bypassPermissions', signal } = options
      return executor.execute({ id: `call-${callNumber}`, name: toolName, input }, { sessionId, workspace, permissionMode: mode, signal, emit: (event) => void events.push(event) })
    },
    close: async (sessionIds = ['s1']) => {
      for (const sessionId of sessionIds) backgroundTasks.cancelSession(sessionId)
      await Promise.all(sessionIds.flatMap((sessionId) => shellTasks.list(sessionId).map((task) => task.done)))
      await rm(workspace, { recursive: true, force: true })
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
