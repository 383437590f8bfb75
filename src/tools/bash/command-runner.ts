/**
 * @module One shell command from start to exit: its output pumped into an OutputSink with
 * backpressure, its own timeout, abort, throttled progress, and a kill of the whole process
 * tree when stopped. It is over when the main process has exited and its pipes are drained;
 * a grandchild that keeps the pipes open cannot hold it longer than a short window.
 */
import type { Readable } from 'node:stream'
import type { OutputSink, StreamName } from './output-sink.js'
import { exitCodeOf, killProcessTree, spawnShell, type ShellProcess } from './process-tree.js'

export const KILL_GRACE_MS = 300
export const DEFAULT_PROGRESS_INTERVAL_MS = 500
// After the main process exits: how long the pipes may stay quiet, and open at all.
const DRAIN_IDLE_MS = 100
const DRAIN_MAX_MS = 2_000
// After SIGKILL a process that still does not exit (uninterruptible sleep) is given up on.
const EXIT_WAIT_AFTER_KILL_MS = 2_000

export type StopReason = 'timeout' | 'abort' | 'stop'

export type CommandProgress = {
  readonly elapsedMs: number
  readonly pid: number | undefined
  readonly stdoutBytes: number
  readonly stderrBytes: number
  readonly outputBytes: number
  readonly stdoutTail: string
  readonly stderrTail: string
}

export interface RunCommandOptions {
  readonly command: string
  readonly cwd: string
  readonly sink: OutputSink
  readonly env?: NodeJS.ProcessEnv | undefined
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
}

interface ExitStatus {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

const NEVER_EXITED: ExitStatus = { code: null, signal: null }

export class RunningCommand {
  readonly exited: Promise<CommandExit>
  readonly #shell: ShellProcess
  readonly #sink: OutputSink
  #pgid: number | undefined = undefined
  readonly #startedAt = performance.now()
  #stopped: StopReason | undefined = undefined
  #giveUp: (() => void) | undefined = undefined
  #paused = false
  #lastDataAt = performance.now()
  #openStreams = 2
  #onStreamsEnded: (() => void) | undefined = undefined

  constructor(options: RunCommandOptions) {
    this.#sink = options.sink
    this.#shell = spawnShell(options.command, options.cwd, options.env ?? process.env)
    this.#listen(this.#shell.stdout, 'stdout')
    this.#listen(this.#shell.stderr, 'stderr')
    void this.#shell.groupId.then((pgid) => {
      this.#pgid = pgid
      // A stop that came before the group was known is carried out now.
      if (pgid !== undefined && this.#stopped !== undefined) killProcessTree(pgid, KILL_GRACE_MS)
    })
    this.exited = this.#run(options)
  }

  /** The command's process group id, once known. */
  get pid(): number | undefined {
    return this.#pgid
  }

  progress(): CommandProgress {
    const counts = this.#sink.counts
    return {
      elapsedMs: Math.round(performance.now() - this.#startedAt),
      pid: this.pid,
      stdoutBytes: counts.stdoutBytes,
      stderrBytes: counts.stderrBytes,
      outputBytes: counts.totalBytes,
      stdoutTail: this.#sink.streamTail('stdout'),
      stderrTail: this.#sink.streamTail('stderr'),
    }
  }

  /** Kills the whole tree; the first reason given is the one reported. */
  stop(reason: StopReason): void {
    if (this.#stopped !== undefined) return
    this.#stopped = reason
    if (this.#pgid !== undefined) killProcessTree(this.#pgid, KILL_GRACE_MS)
    if (this.#giveUp !== undefined) setTimeout(this.#giveUp, KILL_GRACE_MS + EXIT_WAIT_AFTER_KILL_MS).unref()
  }

  async #run(options: RunCommandOptions): Promise<CommandExit> {
    const exiting = this.#exit()
    const disarm = this.#arm(options)
    try {
      const status = await exiting
      disarm.onExit()
      await this.#drain()
      // The wrapper closes fd 3 right after reporting the group, so this is already known.
      this.#pgid = await this.#shell.groupId
      return {
        exitCode: exitCodeOf(status.code, status.signal),
        stopped: this.#stopped,
        durationMs: Math.round(performance.now() - this.#startedAt),
        pid: this.pid,
      }
    } finally {
      disarm.onEnd()
      this.#release()
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

  #listen(stream: Readable, name: StreamName): void {
    stream.on('data', (chunk: Buffer) => this.#onData(name, chunk))
    stream.once('close', () => {
      this.#openStreams--
      if (this.#openStreams === 0) this.#onStreamsEnded?.()
    })
  }

  #onData(name: StreamName, chunk: Buffer): void {
    this.#lastDataAt = performance.now()
    const wait = this.#sink.write(name, chunk)
    if (wait === undefined) return
    this.#setPaused(true)
    void wait.then(() => this.#setPaused(false))
  }

  #setPaused(paused: boolean): void {
    if (this.#paused === paused) return
    this.#paused = paused
    for (const stream of [this.#shell.stdout, this.#shell.stderr]) {
      if (paused) stream.pause()
      else stream.resume()
    }
  }

  /** Resolves when both pipes closed, or they stayed quiet (or open) too long after the exit. */
  #drain(): Promise<void> {
    if (this.#openStreams === 0) return Promise.resolve()
    const exitedAt = performance.now()
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const done = (): void => {
        clearTimeout(timer)
        this.#onStreamsEnded = undefined
        resolve()
      }
      const check = (): void => {
        const now = performance.now()
        const quiet = !this.#paused && now - this.#lastDataAt >= DRAIN_IDLE_MS
        if (quiet || now - exitedAt >= DRAIN_MAX_MS) done()
        else timer = setTimeout(check, DRAIN_IDLE_MS / 2)
      }
      this.#onStreamsEnded = done
      timer = setTimeout(check, DRAIN_IDLE_MS)
    })
  }

  #release(): void {
    this.#shell.stdout.destroy()
    this.#shell.stderr.destroy()
  }
}

/** @example const running = startCommand({ command: 'ls', cwd, sink }); const exit = await running.exited */
export function startCommand(options: RunCommandOptions): RunningCommand {
  return new RunningCommand(options)
}
