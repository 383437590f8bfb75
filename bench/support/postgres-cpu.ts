/**
 * CPU time of a PostgreSQL server on this machine, read from /proc: the postmaster's own,
 * its live children's (the backend serving toolexec's connection does the storing), and
 * what its exited children used (their cutime/cstime, folded into the postmaster when it
 * reaped them), so the total only grows. Linux only; undefined elsewhere.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

// USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux architecture Node runs on.
const TICKS_PER_SECOND = 100

interface ProcStat {
  readonly ppid: number
  /** utime + stime, and cutime + cstime, in ticks. */
  readonly ownTicks: number
  readonly reapedChildTicks: number
}

function procStat(pid: string): ProcStat | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number)
  const at = (field: number): number => fields[field - 3] ?? 0
  return { ppid: at(4), ownTicks: at(14) + at(15), reapedChildTicks: at(16) + at(17) }
}

/** A reader of the server's total CPU in milliseconds, for the cluster whose data directory is `dataDir`. */
export function postgresCpuReader(dataDir: string): (() => number) | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid')
  if (!existsSync('/proc/self/stat') || !existsSync(pidFile)) return undefined
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
  return () => {
    let ticks = 0
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      const stat = procStat(pid)
      if (stat === undefined) continue
      if (Number(pid) === postmaster) ticks += stat.ownTicks + stat.reapedChildTicks
      else if (stat.ppid === postmaster) ticks += stat.ownTicks
    }
    return (ticks / TICKS_PER_SECOND) * 1000
  }
}
