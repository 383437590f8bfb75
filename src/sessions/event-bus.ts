/** @module Live delivery of stored events to the session's subscribers (after commit). */
import type { StoredEvent } from '../contracts/store.js'

export type EventListener = (event: StoredEvent) => void

export class EventBus {
  readonly #listeners = new Map<string, Set<EventListener>>()

  subscribe(sessionId: string, listener: EventListener): () => void {
    let set = this.#listeners.get(sessionId)
    if (set === undefined) {
      set = new Set()
      this.#listeners.set(sessionId, set)
    }
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.#listeners.get(sessionId) === set) this.#listeners.delete(sessionId)
    }
  }

  publish(event: StoredEvent): void {
    const set = this.#listeners.get(event.sessionId)
    if (set === undefined) return
    for (const listener of set) listener(event)
  }

  subscriberCount(sessionId: string): number {
    return this.#listeners.get(sessionId)?.size ?? 0
  }
}
