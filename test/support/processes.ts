/** Looking at real processes from tests. */
import { spawnSync } from 'node:child_process'

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
