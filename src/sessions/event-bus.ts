/** @module Live delivery of stored events to the session's subscribers (after commit). */
import type { StoredEvent } from '../contracts/store.js'

export type EventListener = (event: StoredEvent) => void

interface Subscriber {
  readonly listener: EventListener
  /** Called when the session's stream ends for good (the session was deleted). */
  readonly onEnd: () => void
}

export class EventBus {
  readonly #subscribers = new Map<string, Set<Subscriber>>()

  subscribe(sessionId: string, listener: EventListener, onEnd: () => void = () => {}): () => void {
    let set = this.#subscribers.get(sessionId)
    if (set === undefined) {
      set = new Set()
      this.#subscribers.set(sessionId, set)
    }
    const subscriber = { listener, onEnd }
    set.add(subscriber)
    return () => {
      set.delete(subscriber)
      if (set.size === 0 && this.#subscribers.get(sessionId) === set) this.#subscribers.delete(sessionId)
    }
  }

  publish(event: StoredEvent): void {
    const set = this.#subscribers.get(event.sessionId)
    if (set === undefined) return
    for (const subscriber of set) subscriber.listener(event)
  }

  /** Ends every subscription of the session. */
  end(sessionId: string): void {
    const set = this.#subscribers.get(sessionId)
    this.#subscribers.delete(sessionId)
    for (const subscriber of set ?? []) subscriber.onEnd()
  }

  subscriberCount(sessionId: string): number {
    return this.#subscribers.get(sessionId)?.size ?? 0
  }
}
