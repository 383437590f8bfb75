/**
 * @module The records of this server's background tasks, kept in the store: each write is a
 * unit of work of the task's session, so that on a shared database a server that no longer
 * holds the session's lease writes none of them (the fence refuses it).
 */
import type { BackgroundTaskRecords } from '../contracts/background-task-record.js'
import type { Store } from '../contracts/store.js'

export function storedTaskRecords(store: Pick<Store, 'tasks' | 'commit'>, nodeId: string): BackgroundTaskRecords {
  return {
    started: (task) => store.commit((unit) => unit.tasks.insert({ ...task, nodeId })),
    ended: (sessionId, taskId, end) => store.commit((unit) => unit.tasks.end(sessionId, taskId, end)),
    get: (sessionId, taskId) => store.tasks.get(sessionId, taskId),
  }
}
