/** Looking at real processes from tests. */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Live (not zombie) members of a process group. */
export function groupMembers(pgid: number): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,pgid=,stat='], { encoding: 'utf8' })
  return ps.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, state]) => Number(group) === pgid && !(state ?? '').startsWith('Z'))
    .map(([pid]) => Number(pid))
}

/** Polls `check` every 25 ms until it holds or `withinMs` pass; returns its last answer. */
export async function eventually(check: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs
  while (performance.now() < deadline) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return check()
}

/** The variable that carries a command's tag into every process it starts. */
export const TAG_VARIABLE = 'TOOLEXEC_PROCESS_TAG'

/** Live processes of this user whose environment holds exactly `TAG_VARIABLE=tag`. */
export function processesTagged(tag: string): number[] {
  const entry = `${TAG_VARIABLE}=${tag}`
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => environOf(pid).includes(entry) && isRunning(pid))
}

function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')
  } catch {
    return []
  }
}

/**
 * The pid seen here of a process that carries `tag` and has pid `innerPid` in its own pid
 * namespace (a confined command writes `$!` as its sandbox sees it); the same pid when
 * unconfined; undefined when no such process runs.
 */
export function hostPidOf(innerPid: number, tag: string): number | undefined {
  for (const pid of processesTagged(tag)) {
    try {
      const line =
        readFileSync(`/proc/${pid}/status`, 'utf8')
          .split('\n')
          .find((entry) => entry.startsWith('NSpid:')) ?? ''
      if (Number(line.trim().split(/\s+/).pop()) === innerPid) return pid
    } catch {
      // gone
    }
  }
  return undefined
}

/**
 * `hostPidOf`, asked again for up to `withinMs`: a pid taken from `$!` names a child that may
 * still be between fork and exec, when its environment cannot be read yet. 0 when none appears.
 */
export async function hostPidSoon(innerPid: number, tag: string, withinMs = 2000): Promise<number> {
  let pid: number | undefined
  await eventually(() => (pid = hostPidOf(innerPid, tag)) !== undefined, withinMs)
  return pid ?? 0
}

/** `hostPidInFile`, asked again for up to `withinMs` (see `hostPidSoon`). 0 when none appears. */
export async function hostPidInFileSoon(file: string, withinMs = 2000): Promise<number> {
  const [pid, tag] = readFileSync(file, 'utf8').trim().split(' ')
  return hostPidSoon(Number(pid), tag ?? '', withinMs)
}

/**
 * The pid here of the process a command named in `file` as `echo "$$ $TOOLEXEC_PROCESS_TAG"`
 * (or `$!`) would: in its sandbox's pid namespace when confined, so translated by its tag.
 */
export function hostPidInFile(file: string): number | undefined {
  const [pid, tag] = readFileSync(file, 'utf8').trim().split(' ')
  return hostPidOf(Number(pid), tag ?? '')
}

/** The process group of a running process. */
export function groupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
  } catch {
    return undefined
  }
}

/** Running: it exists and is not a zombie (PID 1 here may not reap orphans). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** SIGKILL to each pid still there; for cleaning up after a test. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}
