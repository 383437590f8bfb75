/**
 * @module What a shutdown does with the work still going on. Calls already running may first
 * finish within a grace period; what still runs once the database is closed is stopped
 * (process trees killed, requests aborted) and nothing more of it is recorded. So it ends as
 * after a crash, with no process left behind: a started call is `interrupted` at the next
 * start, a pending approval stays answerable, a queued schedule runs then.
 */
import { ToolexecError } from '../contracts/errors.js'
import type { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import { isStorageUnavailable, type Store } from '../contracts/store.js'
import { pendingKillsSent } from '../tools/bash/process-tree.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'

const SHUTTING_DOWN = 'The server is shutting down'
/** Long enough for a process tree that ignores SIGTERM to get its SIGKILL. */
const MAX_WAIT_MS = 2_000

export interface CloseOptions {
  /** How long calls already running may take to finish and be recorded first (0: stop at once). */
  readonly graceMs?: number
}

const DRAIN_POLL_MS = 25

/** Whether this server runs the session: on a database several servers share, the others' calls are theirs to wait for. */
export type RunsHere = (sessionId: string) => boolean
const always: RunsHere = () => true

/**
 * Before the database closes, once no call starts any more (the journal holds starts): those
 * running get up to `graceMs` to finish, so that their results are kept instead of ending
 * `interrupted`. A call awaiting approval is not waited for: it stays pending, answerable
 * after the restart.
 */
export async function drainRunningCalls(journal: EventJournal, store: Pick<Store, 'schedules'>, graceMs: number, runsHere: RunsHere = always): Promise<ShutdownReport> {
  const running = await stillRunning(journal, store, runsHere)
  const deadline = performance.now() + graceMs
  let left = running
  while (left > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS))
    left = await stillRunning(journal, store, runsHere)
  }
  // The last result may still be queued for the next commit.
  await journal.flush()
  return { running, finished: running - left, stopped: left }
}

/** The report of a stop without a grace: every call still running is stopped (none counted when the database cannot tell). */
export async function runningReport(journal: EventJournal, store: Pick<Store, 'schedules'>, runsHere: RunsHere = always): Promise<ShutdownReport> {
  let running = 0
  try {
    running = await stillRunning(journal, store, runsHere)
  } catch {
    // A damaged database still closes; the count is only for the log line.
  }
  return { running, finished: 0, stopped: running }
}

/** What the shutdown line says: calls running when it began, those that finished within the grace, those stopped. */
export interface ShutdownReport {
  readonly running: number
  readonly finished: number
  readonly stopped: number
}

/** How many calls run, not counting one whose result a full disk keeps in memory (it has finished); none while the database is away (nothing of them could be written). */
async function stillRunning(journal: EventJournal, store: Pick<Store, 'schedules'>, runsHere: RunsHere): Promise<number> {
  let running: { sessionId: string; id: string }[]
  try {
    running = await store.schedules.runningCalls()
  } catch (error) {
    if (isStorageUnavailable(error)) return 0
    throw error
  }
  if (running.length === 0) return 0
  const kept = journal.keptResults()
  return running.filter((call) => runsHere(call.sessionId) && !kept.has(`${call.sessionId} ${call.id}`)).length
}

export async function stopRunningWork(live: LiveSessions, backgroundTasks: BackgroundTaskRegistry): Promise<void> {
  const sessions = live.all()
  for (const session of sessions) session.controller.abort(new ToolexecError('EXEC_ERR_CANCELLED', [], { context: { reason: SHUTTING_DOWN } }))
  const ended = Promise.allSettled([...sessions.map((session) => session.tail), backgroundTasks.cancelAll(SHUTTING_DOWN)])
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, MAX_WAIT_MS)
  })
  await Promise.race([ended, waited])
  // What ignored the SIGTERM gets its SIGKILL from an unref'd timer, which an exiting process never runs.
  await Promise.race([pendingKillsSent(), waited])
  clearTimeout(timer)
}
