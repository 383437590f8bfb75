/**
 * @module A tag in the environment of every process a command starts, to find the ones that
 * left its process group. A process can leave the group (setsid, a daemon's double fork), but
 * it keeps the environment it was started with, and Linux shows that environment in
 * /proc/<pid>/environ to processes of the same user. So a kill of the group is followed by a
 * scan of /proc for the command's tag, and everything carrying it is signalled too.
 *
 * What it cannot find: a process started with a cleared or rebuilt environment (`env -i`,
 * sudo, ssh), one that writes over its own environment block (setproctitle), and one of
 * another user. Without /proc (not Linux) there is no scan.
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'

export const PROCESS_TAG_VARIABLE = 'TOOLEXEC_PROCESS_TAG'

// A process forked after a scan read the list of pids is found by the next one; after
// SIGKILL no tagged process can fork any more, so a few rounds find all of them.
const KILL_ROUNDS = 3

/** A fresh tag: random, so that no other command (nor this server) carries it. */
export function createProcessTag(): string {
  return randomBytes(12).toString('hex')
}

function pidsInProc(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
  } catch {
    return []
  }
}

/** Whether the NUL-separated environment holds exactly `entry` (itself ending in NUL) as one variable. */
function holdsEntry(environ: Buffer, entry: Buffer): boolean {
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true
  }
  return false
}

function carriesTag(pid: number, entry: Buffer): boolean {
  try {
    return holdsEntry(readFileSync(`/proc/${pid}/environ`), entry)
  } catch {
    // Gone, or another user's: neither is ours to kill.
    return false
  }
}

/** Signals the tagged processes not in `signalled` yet, adds them to it, and returns how many it added. */
function signalOnce(entry: Buffer, signal: NodeJS.Signals, signalled: Set<number>): number {
  const before = signalled.size
  for (const pid of pidsInProc()) {
    // A process killed in an earlier round may still be there, dying: it is not counted twice.
    if (pid === process.pid || signalled.has(pid) || !carriesTag(pid, entry)) continue
    try {
      process.kill(pid, signal)
      signalled.add(pid)
    } catch {
      // It ended in the meantime.
    }
  }
  return signalled.size - before
}

/**
 * Signals every process of this user whose environment carries `tag`; with SIGKILL, scans
 * again until a scan finds no new one (at most a few times). Returns how many processes were signalled.
 */
export function signalTagged(tag: string, signal: NodeJS.Signals): number {
  const entry = Buffer.from(`${PROCESS_TAG_VARIABLE}=${tag}\0`)
  const rounds = signal === 'SIGKILL' ? KILL_ROUNDS : 1
  const signalled = new Set<number>()
  for (let round = 0; round < rounds; round++) {
    if (signalOnce(entry, signal, signalled) === 0) break
  }
  return signalled.size
}
