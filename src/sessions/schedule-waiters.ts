/** @module Clients holding `GET /schedules/:id?wait=N` until the schedule ends. */
export class ScheduleWaiters {
  readonly #waiting = new Map<string, Set<() => void>>()

  wait(scheduleId: string, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.#waiting.get(scheduleId)
      if (set === undefined) {
        set = new Set()
        this.#waiting.set(scheduleId, set)
      }
      const done = (): void => {
        clearTimeout(timer)
        set.delete(done)
        resolve()
      }
      const timer = setTimeout(done, timeoutMs)
      set.add(done)
    })
  }

  /** Answers every held request now, with the schedule as it stands (the server is closing). */
  releaseAll(): void {
    for (const scheduleId of [...this.#waiting.keys()]) this.release(scheduleId)
  }

  release(scheduleId: string): void {
    const set = this.#waiting.get(scheduleId)
    if (set === undefined) return
    this.#waiting.delete(scheduleId)
    for (const done of [...set]) done()
  }
}
