/**
 * A bench target in its own process, so the load generator never shares its event loop.
 * The child runs under tsx, reports `{ url }` over IPC once listening, and answers a
 * `stop` message with its final report before it exits (which also writes a CPU profile
 * when one was asked for).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from '../../src/http/session-stream.js'

export interface ChildTarget {
  readonly url: string
  readonly pid: number | undefined
  /** CPU time (user + system) the child has used so far, in milliseconds. */
  cpuMs(): Promise<number>
  /** Asks the child to close and exit; resolves with what it reported last. */
  stop(): Promise<unknown>
}

export interface ChildOptions {
  readonly args?: readonly string[]
  /** A directory for `node --cpu-prof` output; no profile when undefined. */
  readonly cpuProfileDir?: string | undefined
  /** Added to the child's environment. */
  readonly env?: Record<string, string> | undefined
}

export function childScript(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url))
}

export async function startChild(script: string, options: ChildOptions = {}): Promise<ChildTarget> {
  const profile = options.cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir]
  const child = fork(script, [...(options.args ?? [])], { execArgv: ['--import', 'tsx', ...profile], env: { ...process.env, ...options.env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const url = await firstMessage<{ url: string }>(child, 'url')
  return {
    url: url.url,
    pid: child.pid,
    cpuMs: async () => {
      const reply = firstMessage<{ cpu: { user: number; system: number } }>(child, 'cpu')
      child.send({ cpu: true })
      const { cpu } = await reply
      return (cpu.user + cpu.system) / 1000
    },
    stop: () => stopChild(child),
  }
}

function firstMessage<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      if (typeof message !== 'object' || message === null || !(key in message)) return
      cleanup()
      resolve(message as T)
    }
    const onExit = (code: number | null): void => {
      cleanup()
      reject(new Error(`bench child exited with ${code} before reporting ${key}`))
    }
    const cleanup = (): void => {
      child.off('message', onMessage)
      child.off('exit', onExit)
    }
    child.on('message', onMessage)
    child.once('exit', onExit)
  })
}

async function stopChild(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null) return undefined
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const report = firstMessage<{ report: unknown }>(child, 'report').catch(() => ({ report: undefined }))
  child.send({ stop: true })
  const { report: value } = await report
  await exited
  return value
}

/** Child side: report the URL, answer CPU queries, and on `stop` run `close` and send its report before exiting. */
export function serveAsChild(url: string, close: () => Promise<unknown>): void {
  process.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null) return
    if ('cpu' in message) process.send?.({ cpu: process.cpuUsage() })
    if (!('stop' in message)) return
    void close().then((report) => {
      process.send?.({ report: report ?? null }, () => process.exit(0))
    })
  })
  // A parent that died without `stop` must not leave the child listening.
  process.once('disconnect', () => process.exit(0))
  process.send?.({ url })
}

/** The server's stream limits, with the replay page size overridden by BENCH_REPLAY_PAGE (what-if runs). */
export function benchStreamLimits(): StreamLimits {
  const page = Number(process.env.BENCH_REPLAY_PAGE ?? DEFAULT_STREAM_LIMITS.replayPage)
  return { ...DEFAULT_STREAM_LIMITS, replayPage: page }
}
