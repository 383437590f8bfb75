/**
 * @module Commands left running in the background (`run_in_background`). Each is a
 * BackgroundTask, tracked by the executor's registry (listed per session, cancelled with
 * it, R1); this store also keeps finished ones for a while, so that TaskOutput can still
 * read how a command ended after the registry has let it go. Each is recorded too, before it
 * starts and once it ends (when given the records): the record outlives this process, so that
 * a task that died with its server is told from one that never existed.
 */
import { randomUUID } from 'node:crypto'
import type { BackgroundTaskRecord, BackgroundTaskRecords } from '../../contracts/background-task-record.js'
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
  /** Where each task is recorded as it starts and ends; none: tasks live in memory only. */
  readonly records?: BackgroundTaskRecords | undefined
}

export class ShellTaskStore {
  readonly #tasks = new Map<string, ShellTask>()
  readonly #keepFinished: number
  readonly #records: BackgroundTaskRecords | undefined

  constructor(options: ShellTaskStoreOptions = {}) {
    this.#keepFinished = options.keepFinished ?? DEFAULT_KEEP_FINISHED
    this.#records = options.records
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
      // On record before it runs: a task the model hears of is never one only this process knows.
      await this.#records?.started({
        sessionId: options.sessionId,
        id,
        callId: options.callId,
        command: options.command,
        description: options.description ?? options.command,
        outputPath: output.path,
        startedAt: new Date().toISOString(),
      })
      task = new ShellTask(id, options, output)
    } catch (error) {
      await output.discard()
      await this.#recordEnd(options.sessionId, id, { status: 'failed', exitCode: null, output: { totalBytes: 0, text: '' } })
      throw error
    }
    this.#tasks.set(id, task)
    void task.done.then(async (snapshot) => {
      this.#prune(task.sessionId)
      await this.#recordEnd(task.sessionId, id, snapshot)
    })
    return task
  }

  /** What the records say of a task this process does not know (it ran elsewhere or before a restart, or was let go). */
  recorded(sessionId: string, taskId: string): Promise<BackgroundTaskRecord | undefined> {
    return this.#records?.get(sessionId, taskId) ?? Promise.resolve(undefined)
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

  /**
   * A failed write leaves the task recorded as running, found lost by the next recovery. It
   * fails when the database is gone or when another server took the session over, which has
   * already recorded the task as lost.
   */
  async #recordEnd(sessionId: string, taskId: string, end: Pick<ShellTaskSnapshot, 'status' | 'exitCode' | 'output'>): Promise<void> {
    if (this.#records === undefined || end.status === 'running') return
    const ended = { status: end.status, exitCode: end.exitCode, outputPath: end.output.artifact?.path ?? null, endedAt: new Date().toISOString() }
    await this.#records.ended(sessionId, taskId, ended).catch(() => undefined)
  }

  #prune(sessionId: string): void {
    const finished = this.list(sessionId).filter((task) => task.status !== 'running')
    for (const task of finished.slice(0, Math.max(0, finished.length - this.#keepFinished))) this.#tasks.delete(task.id)
  }
}
