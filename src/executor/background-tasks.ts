/**
 * @module Background tasks the executor tracks: its own, and ones a turn did not start but
 * adopts (R1 trackExternalBackgroundTask), listed and cancellable alike.
 */
import type { BackgroundTask, BackgroundTaskInfo, BackgroundTasks } from '../contracts/ports.js'

interface Tracked {
  readonly task: BackgroundTask
  readonly external: boolean
}

export class BackgroundTaskRegistry implements BackgroundTasks {
  readonly #tasks = new Map<string, Tracked>()

  track(task: BackgroundTask, external: boolean): BackgroundTaskInfo {
    const existing = this.#tasks.get(task.id)
    if (existing !== undefined) return infoOf(existing)
    const tracked = { task, external }
    this.#tasks.set(task.id, tracked)
    const forget = (): void => {
      if (this.#tasks.get(task.id) === tracked) this.#tasks.delete(task.id)
    }
    task.done.then(forget, forget)
    return infoOf(tracked)
  }

  list(sessionId?: string): BackgroundTaskInfo[] {
    const infos: BackgroundTaskInfo[] = []
    for (const tracked of this.#tasks.values()) {
      if (sessionId === undefined || tracked.task.sessionId === sessionId) infos.push(infoOf(tracked))
    }
    return infos
  }

  get(id: string): BackgroundTask | undefined {
    return this.#tasks.get(id)?.task
  }

  cancel(id: string, reason?: string): boolean {
    const tracked = this.#tasks.get(id)
    if (tracked === undefined) return false
    tracked.task.cancel(reason)
    return true
  }

  /** Cancels every task; resolves once each has ended (a shutdown waits for them). */
  cancelAll(reason?: string): Promise<void> {
    const ending = [...this.#tasks.values()].map((tracked) => {
      tracked.task.cancel(reason)
      return tracked.task.done
    })
    return Promise.allSettled(ending).then(() => undefined)
  }

  cancelSession(sessionId: string, reason?: string): number {
    let count = 0
    for (const tracked of [...this.#tasks.values()]) {
      if (tracked.task.sessionId !== sessionId) continue
      tracked.task.cancel(reason)
      count++
    }
    return count
  }
}

function infoOf(tracked: Tracked): BackgroundTaskInfo {
  return { id: tracked.task.id, sessionId: tracked.task.sessionId, description: tracked.task.description, external: tracked.external }
}
