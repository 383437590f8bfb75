/**
 * @module Background tasks that died with the server that ran them. A task lives in the process
 * that started it; when that process is gone (a crash, or a cluster node that died and whose
 * sessions another took over), the task's record still says running. Recovery marks each such
 * task lost, in the session's event log (BackgroundTaskLost), unless it runs in this process.
 */
import type { Logger } from 'pino'
import type { BackgroundTaskRecord } from '../contracts/background-task-record.js'
import type { EventOf } from '../contracts/events.js'
import type { BackgroundTasks } from '../contracts/ports.js'
import type { Store } from '../contracts/store.js'
import type { EventJournal } from './event-journal.js'
import { stateChangeFor } from './event-policy.js'

export interface LostTaskParts {
  readonly store: Pick<Store, 'tasks'>
  readonly journal: EventJournal
  /** The tasks this process runs. */
  readonly backgroundTasks: Pick<BackgroundTasks, 'get'>
  readonly logger: Logger
}

/** Marks lost every task recorded as running, of one session or of all, that this process does not run; returns how many. */
export async function markLostTasks(ctx: LostTaskParts, sessionId?: string): Promise<number> {
  const lost = (await ctx.store.tasks.running(sessionId)).filter((task) => ctx.backgroundTasks.get(task.id)?.sessionId !== task.sessionId)
  for (const task of lost) {
    const event = lostEvent(task)
    await ctx.journal.appendNow(event, stateChangeFor(event))
    ctx.logger.warn({ sessionId: task.sessionId, taskId: task.id, node: task.nodeId }, 'background task lost: the server that ran it stopped before it ended')
  }
  return lost.length
}

function lostEvent(task: BackgroundTaskRecord): EventOf<'BackgroundTaskLost'> {
  const event = { type: 'BackgroundTaskLost' as const, sessionId: task.sessionId, taskId: task.id, callId: task.callId, command: task.command, nodeId: task.nodeId }
  return task.outputPath === null ? event : { ...event, outputPath: task.outputPath }
}
