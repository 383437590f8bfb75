/**
 * @module Shares the event loop among replaying SSE clients. Each client's replay is a
 * series of bounded pages; the pacer runs pages of the clients that are ready, one client
 * after another in turn, for a few milliseconds at a time, then yields (setImmediate) so
 * that sockets, timers and live requests are served before the next turn. Many clients
 * replaying long histories interleave, and none holds the loop for its whole history.
 */

/** What one page did: more pages wait, the client waits (for its socket to drain, for its next page to be read), or the replay is over. */
export type PageOutcome = 'more' | 'parked' | 'done'

export interface Replayer {
  /** Runs one step of its replay (a page written, or its read begun); when it answers 'parked', it calls `ready` again itself once it can go on. */
  replayPage(): PageOutcome
}

/** A turn ends at the first page that ends past this budget: a page is the smallest unit. */
export const DEFAULT_TURN_BUDGET_MS = 8

export class ReplayPacer {
  readonly #turnBudgetMs: number
  /** Clients with a page to run, in turn order. */
  #ready: Replayer[] = []
  #turnScheduled = false

  constructor(turnBudgetMs = DEFAULT_TURN_BUDGET_MS) {
    this.#turnBudgetMs = turnBudgetMs
  }

  /** Queues the client for its next page; it runs in a later turn, never in this call. */
  ready(replayer: Replayer): void {
    this.#ready.push(replayer)
    this.#scheduleTurn()
  }

  /** Clients waiting for a turn (for tests and diagnostics). */
  get waiting(): number {
    return this.#ready.length
  }

  #scheduleTurn(): void {
    if (this.#turnScheduled) return
    this.#turnScheduled = true
    setImmediate(() => this.#turn())
  }

  #turn(): void {
    this.#turnScheduled = false
    const deadline = performance.now() + this.#turnBudgetMs
    // Round-robin: a client with more to send goes to the back, behind every other ready one.
    const queue = this.#ready
    let next = 0
    while (next < queue.length) {
      const replayer = queue[next++] as Replayer
      if (replayer.replayPage() === 'more') queue.push(replayer)
      if (performance.now() >= deadline) break
    }
    this.#ready = next === queue.length ? [] : queue.slice(next)
    if (this.#ready.length > 0) this.#scheduleTurn()
  }
}
