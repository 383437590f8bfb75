/**
 * @module What a shutdown does with the work still going on once the database is closed: it
 * is stopped (process trees killed, requests aborted) and nothing more of it is recorded. So
 * it ends as after a crash, with no process left behind: a started call is `interrupted` at
 * the next start, a pending approval stays answerable, a queued schedule runs then.
 */
import { ToolexecError } from '../contracts/errors.js'
import type { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import type { LiveSessions } from './runtime-context.js'

const SHUTTING_DOWN = 'The server is shutting down'
/** Long enough for a process tree that ignores SIGTERM to get its SIGKILL. */
const MAX_WAIT_MS = 2_000

export async function stopRunningWork(live: LiveSessions, backgroundTasks: BackgroundTaskRegistry): Promise<void> {
  const sessions = live.all()
  for (const session of sessions) session.controller.abort(new ToolexecError('EXEC_ERR_CANCELLED', [], { context: { reason: SHUTTING_DOWN } }))
  const ended = Promise.allSettled([...sessions.map((session) => session.tail), backgroundTasks.cancelAll(SHUTTING_DOWN)])
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, MAX_WAIT_MS)
  })
  await Promise.race([ended, waited])
  clearTimeout(timer)
}
