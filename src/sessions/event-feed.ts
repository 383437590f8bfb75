/**
 * @module A session's events as a client reads them: stored events after a point, then live
 * ones from the bus. Refuses a resume point past the last event the session stored.
 */
import { ToolexecError } from '../contracts/errors.js'
import type { Store, StoredEvent } from '../contracts/store.js'
import type { EventBus, EventListener } from './event-bus.js'

export interface EventFeedParts {
  readonly store: Pick<Store, 'sessions' | 'events'>
  readonly bus: EventBus
}

export class EventFeed {
  readonly #store: Pick<Store, 'sessions' | 'events'>
  readonly #bus: EventBus

  constructor(parts: EventFeedParts) {
    this.#store = parts.store
    this.#bus = parts.bus
  }

  /** Throws API_ERR_SESSION_NOT_FOUND, or API_ERR_VALIDATION for a point past the session's last event. */
  async assertResumable(sessionId: string, after: number): Promise<void> {
    if ((await this.#store.sessions.get(sessionId)) === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [sessionId, ''])
    // Every id sent is stored first, so an id past the last one was never sent by this session
    // (one deleted and created again starts over at 1); resuming from it would skip events unseen.
    const last = await this.#store.events.lastSeq(sessionId)
    if (after > last) {
      throw new ToolexecError('API_ERR_VALIDATION', [`Event ${after} is past the last event of session ${sessionId} (${last}); resume from an id this session sent, or from 0`])
    }
  }

  /** See EventReads.after. */
  eventsAfter(sessionId: string, afterSeq: number, limit: number, maxChars?: number): Promise<StoredEvent[]> {
    return this.#store.events.after(sessionId, afterSeq, limit, maxChars)
  }

  /** Live events of the session as they are committed; `onEnd` when the session is deleted. */
  subscribe(sessionId: string, listener: EventListener, onEnd?: () => void): () => void {
    return this.#bus.subscribe(sessionId, listener, onEnd)
  }
}
