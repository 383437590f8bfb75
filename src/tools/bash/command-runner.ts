/**
 * @module One shell command from start to exit: its output written by the command straight
 * into a CommandOutput file, its own timeout, abort, throttled progress, and a kill of the
 * whole process tree when stopped. It is over when the main process has exited; processes it
 * left running get a short window to finish writing, as they had while they held a pipe.
 */
import { PROGRESS_TAIL_BYTES } from './captured-output.js'
import { defaultCommandEnvironment } from '../../processes/command-environment.js'
import type { CommandOutput } from './command-output.js'
import type { Confinement } from './sandbox.js'
import { exitCodeOf, groupIsRunning, killProcessTree, spawnShell, type ShellProcess } from './process-tree.js'

export const KILL_GRACE_MS = 300
export const DEFAULT_PROGRESS_INTERVAL_MS = 500
// After the main process exits, while processes of its group still run: how long the output
// may stay unchanged, and how long to wait at all, before it is taken as it stands.
const SETTLE_IDLE_MS = 100
const SETTLE_MAX_MS = 2_000
const SETTLE_POLL_MS = 25
// The first polls come sooner: a confined command's sandbox init ends a moment after it.
const SETTLE_FIRST_POLL_MS = 1
// After SIGKILL a process that still does not exit (uninterruptible sleep) is given up on.
const EXIT_WAIT_AFTER_KILL_MS = 2_000

export type StopReason = 'timeout' | 'abort' | 'stop'

/**
 * stdout and stderr share one file, so only their total and their interleaved tail are
 * known, not a count or a tail per stream.
 */
export type CommandProgress = {
  readonly elapsedMs: number
  readonly pid: number | undefined
  readonly outputBytes: number
  readonly outputTail: string
}

export interface RunCommandOptions {
  readonly command: string
  readonly cwd: string
  readonly output: CommandOutput
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The sandbox (sandbox.ts); undefined runs the command unconfined. */
  readonly confinement?: Confinement | undefined
  /** Undefined: no time limit (a background task). */
  readonly timeoutMs?: number | undefined
  readonly signal?: AbortSignal | undefined
  readonly onProgress?: ((progress: CommandProgress) => void) | undefined
  readonly progressIntervalMs?: number | undefined
}

export interface CommandExit {
  /** The exit status; a signal counts as 128 + its number; null when it never exited. */
  readonly exitCode: number | null
  /** Why we ended it, when we did. */
  readonly stopped: StopReason | undefined
  readonly durationMs: number
  /** The command's process group id (the pid of its shell). */
  readonly pid: number | undefined
  /** Processes of its group were still running when it was over, and may still write. */
  readonly leftRunning: boolean
}

interface ExitStatus {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

const NEVER_EXITED: ExitStatus = { code: null, signal: null }

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export class RunningCommand {
  readonly exited: Promise<CommandExit>
  readonly #shell: ShellProcess
  readonly #output: CommandOutput
  #pgid: number | undefined = undefined
  #sandboxInit: number | undefined = undefined
  readonly #startedAt = performance.now()
  #stopped: StopReason | undefined = undefined
  #giveUp: (() => void) | undefined = undefined

  constructor(options: RunCommandOptions) {
    this.#output = options.output
    try {
      this.#shell = spawnShell(options.command, options.cwd, options.env ?? defaultCommandEnvironment().build(), options.output.fd, options.confinement)
    } finally {
      options.output.releaseFd()
    }
    void this.#shell.groupId.then((pgid) => {
      this.#pgid = pgid
      // A stop that came before the group was known is carried out now.
      if (pgid !== undefined && this.#stopped !== undefined) killProcessTree({ pgid, tag: this.#shell.tag }, KILL_GRACE_MS)
    })
    // Not awaited: a bwrap that never got to report it leaves the full scan of /proc.
    void this.#shell.sandboxInit.then((pid) => {
      this.#sandboxInit = pid
    })
    this.exited = this.#run(options)
  }

  /** The command's process group id, once known. */
  get pid(): number | undefined {
    return this.#pgid
  }

  progress(): CommandProgress {
    return {
      elapsedMs: Math.round(performance.now() - this.#startedAt),
      pid: this.pid,
      outputBytes: this.#output.bytes,
      outputTail: this.#output.tail(PROGRESS_TAIL_BYTES),
    }
  }

  /** Kills the whole tree; the first reason given is the one reported. */
  stop(reason: StopReason): void {
    if (this.#stopped !== undefined) return
    this.#stopped = reason
    if (this.#pgid !== undefined) killProcessTree({ pgid: this.#pgid, tag: this.#shell.tag }, KILL_GRACE_MS)
    if (this.#giveUp !== undefined) setTimeout(this.#giveUp, KILL_GRACE_MS + EXIT_WAIT_AFTER_KILL_MS).unref()
  }

  async #run(options: RunCommandOptions): Promise<CommandExit> {
    const exiting = this.#exit()
    const disarm = this.#arm(options)
    try {
      const status = await exiting
      disarm.onExit()
      // The wrapper closes fd 3 right after reporting the group, so this is already known.
      this.#pgid = await this.#shell.groupId
      await this.#settle()
      return {
        exitCode: exitCodeOf(status.code, status.signal),
        stopped: this.#stopped,
        durationMs: Math.round(performance.now() - this.#startedAt),
        pid: this.pid,
        leftRunning: this.#groupIsAlive(),
      }
    } finally {
      disarm.onEnd()
    }
  }

  /** Timeout, abort and progress; the returned functions undo them. */
  #arm(options: RunCommandOptions): { onExit(): void; onEnd(): void } {
    const { timeoutMs, signal, onProgress } = options
    const timeout = timeoutMs === undefined ? undefined : setTimeout(() => this.stop('timeout'), timeoutMs)
    const onAbort = (): void => this.stop('abort')
    signal?.addEventListener('abort', onAbort, { once: true })
    if (signal?.aborted === true) onAbort()
    const interval = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS
    const ticker = onProgress === undefined ? undefined : setInterval(() => onProgress(this.progress()), interval)
    return {
      onExit: () => clearTimeout(timeout),
      onEnd: () => {
        clearTimeout(timeout)
        clearInterval(ticker)
        signal?.removeEventListener('abort', onAbort)
      },
    }
  }

  #exit(): Promise<ExitStatus> {
    return new Promise<ExitStatus>((resolve, reject) => {
      this.#giveUp = () => resolve(NEVER_EXITED)
      this.#shell.child.once('exit', (code, signal) => resolve({ code, signal }))
      this.#shell.child.once('error', reject)
    })
  }

  #groupIsAlive(): boolean {
    return this.#pgid !== undefined && groupIsRunning(this.#pgid, this.#sandboxInit)
  }

  /**
   * With nothing of the group left, every byte is already in the file. Otherwise waits until
   * the group is gone, or the output stayed unchanged (or the group alive) too long.
   */
  async #settle(): Promise<void> {
    const exitedAt = performance.now()
    let bytes = this.#output.bytes
    let changedAt = exitedAt
    let pollMs = SETTLE_FIRST_POLL_MS
    while (this.#groupIsAlive()) {
      const now = performance.now()
      if (now - changedAt >= SETTLE_IDLE_MS || now - exitedAt >= SETTLE_MAX_MS) return
      await sleep(pollMs)
      pollMs = Math.min(pollMs * 2, SETTLE_POLL_MS)
      const current = this.#output.bytes
      if (current !== bytes) {
        bytes = current
        changedAt = performance.now()
      }
    }
  }
}

/** @example const running = startCommand({ command: 'ls', cwd, output }); const exit = await running.exited */
export function startCommand(options: RunCommandOptions): RunningCommand {
  return new RunningCommand(options)
}
