/**
 * dist/ is one directory of the checkout, and vitest runs test files side by side: the files
 * that build or pack it take turns through an exclusive lock file (a crashed holder's lock,
 * whose PID is gone, is taken over).
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..')
const LOCK = path.join(os.tmpdir(), `toolexec-dist-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`)

export async function withDistLock<T>(work: () => Promise<T>): Promise<T> {
  while (!tryLock()) await new Promise((resolve) => setTimeout(resolve, 250))
  try {
    return await work()
  } finally {
    rmSync(LOCK, { force: true })
  }
}

function tryLock(): boolean {
  try {
    const fd = openSync(LOCK, 'wx')
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error
    if (!holderAlive()) rmSync(LOCK, { force: true })
    return false
  }
}

function holderAlive(): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(LOCK, 'utf8'))
  } catch {
    return true
  }
  // Written right after creation: an empty file is a holder still writing its PID.
  if (!Number.isInteger(pid) || pid <= 0) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code !== 'ESRCH'
  }
}

export interface CommandResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end; a non-zero exit throws with what it printed. */
export async function runCommand(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CommandResult> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000)
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', resolve)
  }).finally(() => clearTimeout(timer))
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}:\n${stdout}\n${stderr}`)
  return { code, stdout, stderr }
}

/** `npm run build` of the checkout, under the lock: dist/ as the Dockerfile's runtime stage copies it. */
export function buildDist(): Promise<CommandResult> {
  return withDistLock(() => runCommand('npm', ['run', 'build'], { cwd: REPO_ROOT }))
}
