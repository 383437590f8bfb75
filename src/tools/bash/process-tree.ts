/**
 * @module A shell command as a process group of its own, so that everything it starts,
 * grandchildren included, can be signalled at once with a negative pid.
 *
 * `bash -c` runs as a background job of a small wrapper shell with job control on
 * (`set -m`): bash gives the job a process group whose id is the job's pid, and the wrapper
 * reports that pid on fd 3, then waits for the job and exits with its status. The job gets
 * the real stdout and stderr; the wrapper's own notices (`[1]+ Done`) go to /dev/null.
 * stdout and stderr are one file descriptor given by the caller (the output file).
 *
 * The wrapper also holds the read end of a pipe whose other end only this process has, and
 * a watcher that waits on it: when this process dies, even by SIGKILL, the read ends and the
 * watcher kills the command's whole group, so a crashed server leaves no command running.
 * When the command ends first, the wrapper ends the watcher.
 *
 * A process can leave the group (setsid, a daemon's double fork). Every kill here, the
 * watcher's included, also kills the processes that carry the command's tag in their
 * environment (process-tag.ts). A command that ends by itself is not a kill: what it left
 * running, in its group or out of it, runs on.
 *
 * Confined (sandbox.ts), the job is bwrap: its process group holds bwrap and every process of
 * the sandbox, whose pids inside are those of a pid namespace of its own. A SIGKILL of the
 * group reaches the sandbox's init, and with it the kernel ends every process inside, those
 * that left the group included. bwrap reports that init's pid on fd 6 (--info-fd, closed inside
 * the sandbox), so that whether the group still runs takes two reads of /proc, not a scan.
 *
 * Why not spawn({ detached: true }): that calls setsid(), a new session, and with Linux
 * scheduler autogroups (on by default) a new session is a new scheduling group. Across
 * groups every pipe write wakes the reader at once; under load that made reading a
 * command's output 2.5 times slower. A job in a background process group that touches the
 * terminal (if the server has one) is stopped, its wrapper returns, and the orphaned group
 * is sent SIGHUP: it ends at once instead of hanging.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { constants } from 'node:os'
import type { Readable, Writable } from 'node:stream'
import { createProcessTag, PROCESS_TAG_VARIABLE, signalTagged } from './process-tag.js'
import { INSIDE_PREFIX, SECCOMP_FD, type Confinement } from './sandbox.js'

/**
 * The lifeline's half of process-tag.ts, in bash since the server is gone by then: SIGKILL to
 * every process whose environment holds the tag exactly, found by one grep over /proc (none
 * without /proc). A few rounds, for what forked while the previous one ran.
 */
const KILL_TAGGED = [
  'kill_tagged() {',
  '  local round found file',
  '  for round in 1 2 3; do',
  `    found=$(grep -lsxzF -- "${PROCESS_TAG_VARIABLE}=$1" /proc/[0-9]*/environ)`,
  // grep fails on the files it may not read, so only what it printed tells.
  '    [[ -n $found ]] || return 0',
  '    while read -r file; do file=${file#/proc/}; kill -KILL "${file%/environ}"; done <<< "$found"',
  '  done',
  '}',
]

// $1 is the command, $2 its tag: only the command's environment gets the tag, not the wrapper's.
// Unconfined, the job is `bash -c "$1"`; confined, it is bwrap with its options and the
// command (the arguments from $3 on), started with SIGTERM ignored: a SIGTERM to the group
// then reaches the command inside and leaves its sandbox standing until the command ends, so
// a command's SIGTERM handler runs as it would unconfined (sandbox.ts restores the signal).
// Only bwrap gets fd 6, where it reports its sandbox's init (--info-fd), and fd 7, where it
// reads its seccomp filter (sandbox.ts); the wrapper closes both, bwrap closes them inside.
const UNCONFINED_JOB = `${PROCESS_TAG_VARIABLE}="$2" bash -c "$1" 2>&4 3>&- 4>&- 5<&- 6>&- 7<&- &`
const CONFINED_JOB = `(trap "" TERM; ${PROCESS_TAG_VARIABLE}="$2" exec "\${@:3}") 2>&4 3>&- 4>&- 5<&- &`

function wrapperScript(job: string): string {
  return [
    'exec 4>&2 2>/dev/null',
    ...KILL_TAGGED,
    'set -m',
    job,
    'job=$!',
    'printf "%d\\n" "$job" >&3',
    'exec 3>&- 4>&- 6>&- 7<&-',
    // The lifeline: fd 5 reads end of file only when the server is gone, however it ended.
    // Once the group is killed the wrapper ends the watcher below, so it ignores that first.
    '(read -r _ <&5; trap "" TERM; kill -KILL -- "-$job"; kill_tagged "$2") &',
    'watcher=$!',
    'exec 5<&-',
    'wait "$job"',
    'status=$?',
    'kill "$watcher"',
    'exit "$status"',
  ].join('\n')
}

const UNCONFINED_WRAPPER = wrapperScript(UNCONFINED_JOB)
const CONFINED_WRAPPER = wrapperScript(CONFINED_JOB)

export interface ShellProcess {
  readonly child: ChildProcess
  /** The command's process group id, once the wrapper has reported it. */
  readonly groupId: Promise<number | undefined>
  /** Confined: the pid (in this namespace) of the sandbox's init, as bwrap reports it. */
  readonly sandboxInit: Promise<number | undefined>
  /** The tag in the environment of every process the command starts (process-tag.ts). */
  readonly tag: string
}

function pipeOf(child: ChildProcess, fd: number): Readable {
  const stream = child.stdio[fd]
  if (stream === null || stream === undefined || !('read' in stream)) throw new Error(`no pipe on fd ${fd}`)
  return stream
}

/** All a pipe carries, once its writers have closed it. */
function readAll(report: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    report.setEncoding('utf8')
    report.on('data', (chunk: string) => {
      text += chunk
    })
    report.once('close', () => resolve(text))
  })
}

function positiveInteger(text: string | undefined): number | undefined {
  const value = Number.parseInt(text ?? '', 10)
  return Number.isInteger(value) && value > 0 ? value : undefined
}

/** bwrap's --info-fd: JSON whose "child-pid" is its sandbox's init (the fd is closed inside). */
const INFO_FD = 6

async function readSandboxInit(info: Readable): Promise<number | undefined> {
  return positiveInteger(/"child-pid"\s*:\s*(\d+)/.exec(await readAll(info))?.[1])
}

/** The filter, written whole; bwrap reads it to its end before the command starts. */
function sendSeccomp(child: ChildProcess, program: Buffer | undefined): void {
  if (program === undefined) return
  const stream = (child.stdio as readonly unknown[])[SECCOMP_FD] as Writable | null | undefined
  stream?.on('error', () => {})
  stream?.end(program)
}

/**
 * Starts `bash -c command` in `cwd` in a process group of its own; stdin reads nothing, stdout
 * and stderr both write to `outputFd`. The child has its own copy of `outputFd` on return.
 * With `confinement` (see sandbox.ts) the command runs in that sandbox, started as its uid
 * (the wrapper too, so that it may signal it); its process group is then bwrap's, and holds
 * every process of the sandbox.
 */
export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv, outputFd: number, confinement?: Confinement): ShellProcess {
  const tag = createProcessTag()
  const [bwrap, ...options] = confinement?.argv ?? []
  const args =
    bwrap === undefined
      ? ['-c', UNCONFINED_WRAPPER, 'toolexec-bash', command, tag]
      : ['-c', CONFINED_WRAPPER, 'toolexec-bash', command, tag, bwrap, '--info-fd', String(INFO_FD), ...options, ...INSIDE_PREFIX, command]
  const info = bwrap === undefined ? 'ignore' : 'pipe'
  const seccomp = confinement?.seccomp === undefined ? 'ignore' : 'pipe'
  const user = confinement?.user ?? {}
  const child = spawn('bash', args, { cwd, env, ...user, stdio: ['ignore', outputFd, outputFd, 'pipe', 'ignore', 'pipe', info, seccomp] })
  sendSeccomp(child, confinement?.seccomp)
  // Never written; while this process lives the wrapper's watcher waits on it.
  const lifeline = pipeOf(child, 5)
  lifeline.on('error', () => {})
  // Flowing, so that its end is seen and the pipe closed once the wrapper is gone.
  lifeline.resume()
  const groupId = readAll(pipeOf(child, 3)).then(positiveInteger)
  const sandboxInit = bwrap === undefined ? Promise.resolve(undefined) : readSandboxInit(pipeOf(child, INFO_FD))
  return { child, groupId, sandboxInit, tag }
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

/** The process group of `pid` and whether it is a zombie, from /proc; undefined when gone. */
function groupAndState(pid: string | number): { pgrp: number; zombie: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { pgrp: Number(fields[2]), zombie: fields[0] === 'Z' }
  } catch {
    return undefined
  }
}

function runsInGroup(pid: string | number, pgid: number): boolean {
  const member = groupAndState(pid)
  return member !== undefined && member.pgrp === pgid && !member.zombie
}

/**
 * Whether a process of the group still runs. A zombie does not count: a confined command's
 * sandbox init is left to the system's init to reap once bwrap has exited, and some (a
 * container's) take seconds or never do. Without /proc, any member counts.
 *
 * With `sandboxInit` (a confined command's group) two reads tell instead of a scan of /proc:
 * outside its sandbox the group holds only bwrap, its leader, and inside every process is a
 * descendant of the sandbox's init, which waits for all of them before it exits; once it is
 * a zombie, the kernel has ended every process of its pid namespace.
 */
export function groupIsRunning(pgid: number, sandboxInit?: number): boolean {
  if (!signalGroup(pgid, 0)) return false
  if (sandboxInit !== undefined && existsSync('/proc/self/stat')) return runsInGroup(pgid, pgid) || runsInGroup(sandboxInit, pgid)
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return true
  }
  for (const name of names) {
    if (name.charCodeAt(0) > 57 || name.charCodeAt(0) < 48) continue
    if (runsInGroup(name, pgid)) return true
  }
  return false
}

/** What one command started: its process group, and every process carrying its tag. */
export interface ProcessTree {
  readonly pgid: number
  readonly tag: string
}

function signalTree(tree: ProcessTree, signal: NodeJS.Signals): void {
  signalGroup(tree.pgid, signal)
  signalTagged(tree.tag, signal)
}

/** The SIGKILLs killProcessTree has scheduled and not sent yet. */
const pendingKills = new Set<Promise<void>>()

/**
 * SIGTERM to the whole tree now, SIGKILL to whatever is left after `graceMs`. The second
 * timer does not keep the server alive: a server that stops waits for it with pendingKillsSent.
 */
export function killProcessTree(tree: ProcessTree, graceMs: number): void {
  signalTree(tree, 'SIGTERM')
  const sent = new Promise<void>((resolve) => {
    const kill = (): void => {
      pendingKills.delete(sent)
      signalTree(tree, 'SIGKILL')
      resolve()
    }
    setTimeout(kill, graceMs).unref()
  })
  pendingKills.add(sent)
}

/**
 * Settles once every SIGKILL scheduled so far is sent. A command's main process may end at
 * SIGTERM while what it started ignores it; a server exiting before the SIGKILL leaves that behind.
 */
export async function pendingKillsSent(): Promise<void> {
  await Promise.all([...pendingKills])
}

/** A shell's exit status: a signal counts as 128 + its number, as bash reports it. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number | null {
  if (code !== null) return code
  if (signal === null) return null
  const number = constants.signals[signal]
  return number === undefined ? null : 128 + number
}
