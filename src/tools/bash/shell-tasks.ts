/**
 * @module Commands left running in the background (`run_in_background`). Each is a
 * BackgroundTask, tracked by the executor's registry (listed per session, cancelled with
 * it, R1); this store also keeps finished ones for a while, so that TaskOutput can still
 * read how a command ended after the registry has let it go.
 */
import { randomUUID } from 'node:crypto'
import type { ArtifactStore, BackgroundTask } from '../../contracts/ports.js'
import type { CapturedOutput } from './captured-output.js'
import { CommandOutput } from './command-output.js'
import { startCommand, type CommandExit, type RunningCommand } from './command-runner.js'
import type { Confinement } from './sandbox.js'

export type ShellTaskStatus = 'running' | 'completed' | 'failed' | 'killed'

export const DEFAULT_KEEP_FINISHED = 50

export interface ShellTaskSnapshot {
  readonly taskId: string
  readonly command: string
  readonly description: string
  readonly status: ShellTaskStatus
  readonly exitCode: number | null
  readonly output: CapturedOutput
  readonly error?: string | undefined
}

export interface ShellTaskOptions {
  readonly sessionId: string
  /** The call that started it: its artifact is named after it (A10). */
  readonly callId: string
  readonly command: string
  readonly description?: string | undefined
  readonly cwd: string
  readonly artifacts?: ArtifactStore | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The sandbox it runs in (command-runner.ts); undefined: none. */
  readonly confinement?: Confinement | undefined
}

declare module '../../contracts/tool-context.js' {
  interface ToolServices {
    /** Bash's background commands, for TaskOutput and TaskStop. */
    shellTasks: ShellTaskStore
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function statusOf(exit: CommandExit): ShellTaskStatus {
  if (exit.stopped !== undefined) return 'killed'
  return exit.exitCode === 0 ? 'completed' : 'failed'
}

export class ShellTask implements BackgroundTask {
  readonly id: string
  readonly sessionId: string
  readonly command: string
  readonly description: string
  /** Whether it runs in a sandbox. */
  readonly confined: boolean
  readonly done: Promise<ShellTaskSnapshot>
  readonly #output: CommandOutput
  readonly #running: RunningCommand
  #final: ShellTaskSnapshot | undefined = undefined

  constructor(id: string, options: ShellTaskOptions, output: CommandOutput) {
    this.id = id
    this.sessionId = options.sessionId
    this.command = options.command
    this.description = options.description ?? options.command
    this.confined = options.confinement !== undefined
    this.#output = output
    this.#running = startCommand({ command: options.command, cwd: options.cwd, output, env: options.env, confinement: options.confinement })
    this.done = this.#settle()
  }

  get status(): ShellTaskStatus {
    return this.#final?.status ?? 'running'
  }

  get pid(): number | undefined {
    return this.#running.pid
  }

  /** Kills the whole process tree; a finished task is left as it is. */
  cancel(): void {
    if (this.#final === undefined) this.#running.stop('stop')
  }

  /** The status and the output since the start: final once it ended, so far while it runs. */
  snapshot(): ShellTaskSnapshot {
    return this.#final ?? this.#snapshot('running', null, this.#output.peek())
  }

  async #settle(): Promise<ShellTaskSnapshot> {
    try {
      const exit = await this.#running.exited
      this.#final = this.#snapshot(statusOf(exit), exit.exitCode, await this.#output.finish({ stillWriting: exit.leftRunning }))
    } catch (error) {
      this.#final = { ...this.#snapshot('failed', null, await this.#output.finish({ stillWriting: true })), error: messageOf(error) }
    }
    return this.#final
  }

  #snapshot(status: ShellTaskStatus, exitCode: number | null, output: CapturedOutput): ShellTaskSnapshot {
    return { taskId: this.id, command: this.command, description: this.description, status, exitCode, output }
  }
}

export interface ShellTaskStoreOptions {
  /** Finished tasks kept per session, oldest dropped first. */
  readonly keepFinished?: number | undefined
}

export class ShellTaskStore {
  readonly #tasks = new Map<string, ShellTask>()
  readonly #keepFinished: number

  constructor(options: ShellTaskStoreOptions = {}) {
    this.#keepFinished = options.keepFinished ?? DEFAULT_KEEP_FINISHED
  }

  /** Starts a command in the background and keeps it. */
  async start(options: ShellTaskOptions): Promise<ShellTask> {
    const output = await CommandOutput.create({
      artifacts: options.artifacts,
      artifact: { sessionId: options.sessionId, callId: options.callId, mediaType: 'text/plain', retention: 'session' },
    })
    let id = `bash_${randomUUID().slice(0, 8)}`
    while (this.#tasks.has(id)) id = `bash_${randomUUID().slice(0, 8)}`
    let task: ShellTask
    try {
      task = new ShellTask(id, options, output)
    } catch (error) {
      await output.discard()
      throw error
    }
    this.#tasks.set(id, task)
    void task.done.then(() => this.#prune(task.sessionId))
    return task
  }

  /** A task of this session, running or kept after it ended. */
  get(sessionId: string, taskId: string): ShellTask | undefined {
    const task = this.#tasks.get(taskId)
    return task?.sessionId === sessionId ? task : undefined
  }

  list(sessionId: string): ShellTask[] {
    return [...this.#tasks.values()].filter((task) => task.sessionId === sessionId)
  }

  /**
   * Drops every task of a deleted session, so that a new session of the same id cannot read
   * them. Deletion is refused while one runs; the executor's registry tracks it either way.
   */
  forgetSession(sessionId: string): void {
    for (const task of this.list(sessionId)) this.#tasks.delete(task.id)
  }

  #prune(sessionId: string): void {
    const finished = this.list(sessionId).filter((task) => task.status !== 'running')
    for (const task of finished.slice(0, Math.max(0, finished.length - this.#keepFinished))) this.#tasks.delete(task.id)
  }
}
