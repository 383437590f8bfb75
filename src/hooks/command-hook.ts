/**
 * @module A command hook: `bash -c <command>` in the workspace with the hook input as JSON on
 * stdin. Exit 0: stdout is read as JSON (plain text is additional context). Exit 2: block,
 * stderr is the reason. Any other code: a non-blocking hook error.
 */
import { spawn } from 'node:child_process'
import type { CommandHookConfig } from '../contracts/hook-config.js'
import type { HookEventName, HookOutput, HookPayload } from '../contracts/ports.js'
import { defaultCommandEnvironment, type CommandEnvironment } from '../processes/command-environment.js'
import { hookInput } from './hook-input.js'
import { blockingOutput, normalizeHookOutput } from './hook-output.js'

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000
const MAX_CAPTURE_BYTES = 1024 * 1024
/** How long output still read after the hook's exit may take to end. */
const EXIT_GRACE_MS = 500

export class HookError extends Error {
  override readonly name = 'HookError'
  readonly timedOut: boolean

  constructor(message: string, timedOut = false) {
    super(message)
    this.timedOut = timedOut
  }
}

interface Exit {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export function hookTimeoutMs(config: { timeoutMs?: number | undefined; timeout?: number | undefined }): number {
  return config.timeoutMs ?? (config.timeout === undefined ? DEFAULT_HOOK_TIMEOUT_MS : Math.round(config.timeout * 1000))
}

export async function runCommandHook(
  config: CommandHookConfig,
  event: HookEventName,
  payload: HookPayload,
  signal: AbortSignal,
  environment: CommandEnvironment = defaultCommandEnvironment(),
): Promise<HookOutput | undefined> {
  const cwd = payload.workspace
  const env = { ...environment.build({ env: config.env, passEnv: config.passEnv }), CLAUDE_PROJECT_DIR: cwd ?? '' }
  const exit = await runProcess(config.command, JSON.stringify(hookInput(payload)), cwd, env, hookTimeoutMs(config), signal)
  if (exit.code === 2) return blockingOutput(event, exit.stderr.trim() || `Blocked by hook: ${config.command}`)
  if (exit.code !== 0) throw new HookError(`Hook exited with code ${String(exit.code)}: ${exit.stderr.trim().slice(0, 500)}`)
  return parseStdout(event, exit.stdout)
}

function parseStdout(event: HookEventName, stdout: string): HookOutput | undefined {
  const text = stdout.trim()
  if (text.length === 0) return undefined
  if (!text.startsWith('{')) return { additionalContext: text }
  try {
    return normalizeHookOutput(event, JSON.parse(text))
  } catch {
    throw new HookError(`Hook printed invalid JSON: ${text.slice(0, 200)}`)
  }
}

function runProcess(command: string, stdin: string, cwd: string | undefined, env: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<Exit> {
  return new Promise<Exit>((resolve, reject) => {
    // stdin is a socket: without --norc bash would take itself for a remote shell and read ~/.bashrc.
    const child = spawn('bash', ['--norc', '-c', command], { cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env })
    let stdout = ''
    let stderr = ''
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    const timer = setTimeout(() => {
      kill()
      reject(new HookError(`Hook timed out after ${timeoutMs}ms`, true))
    }, timeoutMs)
    const onAbort = (): void => {
      kill()
      reject(new HookError('Hook aborted'))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    // Decoded by the streams, so that a character split between two pipe reads stays whole.
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < MAX_CAPTURE_BYTES) stdout += chunk
    })
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_CAPTURE_BYTES) stderr += chunk
    })
    child.on('error', (error) => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      reject(new HookError(`Hook could not start: ${error.message}`))
    })
    let exitTimer: NodeJS.Timeout | undefined
    const finish = (code: number | null): void => {
      clearTimeout(timer)
      clearTimeout(exitTimer)
      signal.removeEventListener('abort', onAbort)
      child.stdout.destroy()
      child.stderr.destroy()
      resolve({ code, stdout, stderr })
    }
    // A process the hook left in the background (`watcher &`) may hold its pipes open for
    // long after it exits: its answer is what it wrote by then, not a timeout.
    child.on('exit', (code) => {
      exitTimer = setTimeout(() => finish(code), EXIT_GRACE_MS)
    })
    child.on('close', finish)
    child.stdin.on('error', () => {})
    child.stdin.end(stdin)
  })
}
