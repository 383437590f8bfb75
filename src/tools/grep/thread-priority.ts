/**
 * @module The scheduling priority of one worker thread (Linux). A Grep batch that runs long
 * (a catastrophic pattern, a huge file) is lowered, so that the event loop and other
 * sessions' short Greps win the CPU over it while it still uses what is left. Linux applies
 * setpriority(2) to one thread when given its id; elsewhere there is no id and nothing changes.
 */
import { existsSync, readlinkSync } from 'node:fs'
import os from 'node:os'

/** Enough that a thread at the normal priority gets ~90% of a core it shares with a lowered one (weights 1024 : 110). */
export const LOWERED_BY = 10
const LOWEST_NICE = 19

/** The calling thread's id, from a worker thread; undefined where /proc/thread-self is not there. */
export function ownThreadId(): number | undefined {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop())
    return Number.isInteger(id) && id > 0 ? id : undefined
  } catch {
    return undefined
  }
}

/** The priority worker threads start with: the process's own. */
export function normalNice(): number {
  return os.getPriority()
}

/** The priority of a thread running a long batch. */
export function loweredNice(normal: number): number {
  return Math.min(LOWEST_NICE, normal + LOWERED_BY)
}

/**
 * Sets a thread of this process's nice value; false when that is not allowed (raising it
 * back needs CAP_SYS_NICE) or the thread is gone (its id is then never used: it could be
 * another process's by now).
 */
export function setThreadNice(threadId: number, nice: number): boolean {
  if (!existsSync(`/proc/self/task/${threadId}`)) return false
  try {
    os.setPriority(threadId, nice)
    return true
  } catch {
    return false
  }
}
