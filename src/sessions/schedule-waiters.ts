/** @module Clients holding `GET /schedules/:id?wait=N` until the schedule ends. */
export class ScheduleWaiters {
  readonly #waiting = new Map<string, Set<() => void>>()

  /**
   * Waits for the schedule's end, at most `timeoutMs`; `stop` ends the wait early. Begun before
   * the schedule is read, so that an end between the read and the wait is not missed.
   */
  wait(scheduleId: string, timeoutMs: number): { readonly ended: Promise<void>; stop(): void } {
    let stop: () => void = () => {}
    const ended = new Promise<void>((resolve) => {
      let set = this.#waiting.get(scheduleId)
      if (set === undefined) {
        set = new Set()
        this.#waiting.set(scheduleId, set)
      }
      const done = (): void => {
        clearTimeout(timer)
        set.delete(done)
        if (set.size === 0 && this.#waiting.get(scheduleId) === set) this.#waiting.delete(scheduleId)
        resolve()
      }
      const timer = setTimeout(done, timeoutMs)
      set.add(done)
      stop = done
    })
    return { ended, stop }
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
