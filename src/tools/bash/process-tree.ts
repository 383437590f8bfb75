/**
 * @module A shell command as a process group: `bash -c` is started as the leader of its own
 * group (detached), so that everything it starts, grandchildren included, can be signalled
 * at once with a negative pid.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { constants } from 'node:os'
import type { Readable } from 'node:stream'

export type ShellProcess = ChildProcessByStdio<null, Readable, Readable>

/** Starts `bash -c command` in `cwd` as a new process group; stdin reads nothing. */
export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ShellProcess {
  return spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Signals every process of the group; false when none is left (or none may be signalled). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    return false
  }
}

/** Whether any process of the group is still there (zombies count until reaped). */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0)
}

/**
 * SIGTERM to the whole group now, SIGKILL to whatever is left after `graceMs`. The second
 * timer does not keep the server alive.
 */
export function killProcessTree(pgid: number, graceMs: number): void {
  signalGroup(pgid, 'SIGTERM')
  setTimeout(signalGroup, graceMs, pgid, 'SIGKILL').unref()
}

/** A shell's exit status: a signal counts as 128 + its number, as bash reports it. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number | null {
  if (code !== null) return code
  if (signal === null) return null
  const number = constants.signals[signal]
  return number === undefined ? null : 128 + number
}
