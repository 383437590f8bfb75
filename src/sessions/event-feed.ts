/**
 * @module A session's events as a client reads them: stored events after a point, then live
 * ones from the bus, and wake-ups when another node commits some. Refuses a resume point past
 * the last event the session stored.
 */
import { ToolexecError } from '../contracts/errors.js'
import type { Store, StoredEvent } from '../contracts/store.js'
import type { EventBus, EventListener } from './event-bus.js'
import type { WakeUps } from './wake-ups.js'

export interface EventFeedParts {
  readonly store: Pick<Store, 'sessions' | 'events'>
  readonly bus: EventBus
  /** Other nodes' commits, on a shared database. */
  readonly wakeUps?: WakeUps | undefined
}

export class EventFeed {
  readonly #store: Pick<Store, 'sessions' | 'events'>
  readonly #bus: EventBus
  readonly #wakeUps: WakeUps | undefined

  constructor(parts: EventFeedParts) {
    this.#store = parts.store
    this.#bus = parts.bus
    this.#wakeUps = parts.wakeUps
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

  /**
   * Live events of the session as this node commits them; `onEnd` when the session is deleted;
   * `onWake` when another node committed events of it, up to `seq` when told (read them from the store).
   */
  subscribe(sessionId: string, listener: EventListener, onEnd?: () => void, onWake?: (seq?: number) => void): () => void {
    const unsubscribe = this.#bus.subscribe(sessionId, listener, onEnd)
    if (onWake === undefined || this.#wakeUps === undefined) return unsubscribe
    const unwake = this.#wakeUps.subscribe(sessionId, onWake)
    return () => {
      unsubscribe()
      unwake()
    }
  }
}
