/**
 * @module The session event journal: every event gets the session's next sequence number
 * and is written, with the state change it stands for, in one transaction before anyone
 * sees it. Appends from one tick share a transaction (the hot path); appendNow writes at
 * once, after whatever is queued, for HTTP handlers that reply only once it is durable.
 */
import type { ExecutorEvent } from '../contracts/events.js'
import type { StoredEvent } from '../contracts/store.js'
import type { SqliteStore } from '../storage/sqlite-store.js'
import type { EventBus } from './event-bus.js'

export type StateChange = (store: SqliteStore, at: string) => void

interface Pending {
  readonly event: ExecutorEvent
  readonly change: StateChange | undefined
  readonly resolve: (stored: StoredEvent) => void
  readonly reject: (error: unknown) => void
}

export class EventJournal {
  readonly #store: SqliteStore
  readonly #bus: EventBus
  readonly #lastSeq = new Map<string, number>()
  #queue: Pending[] = []
  #flushScheduled = false

  constructor(store: SqliteStore, bus: EventBus) {
    this.#store = store
    this.#bus = bus
  }

  append(event: ExecutorEvent, change?: StateChange): Promise<StoredEvent> {
    return new Promise<StoredEvent>((resolve, reject) => {
      this.#queue.push({ event, change, resolve, reject })
      if (!this.#flushScheduled) {
        this.#flushScheduled = true
        setImmediate(() => this.flush())
      }
    })
  }

  /**
   * Writes what is queued, then this event in a transaction of its own, and returns it
   * stored. A change that throws here (a rejected request) never takes queued events with it.
   */
  appendNow(event: ExecutorEvent, change?: StateChange, before?: StateChange): StoredEvent {
    this.flush()
    let stored: StoredEvent
    try {
      stored = this.#store.transaction(() => {
        const at = new Date().toISOString()
        before?.(this.#store, at)
        return this.#write({ event, change, resolve: noop, reject: noop }, at)
      })
    } catch (error) {
      this.#forgetSeqs([event.sessionId])
      throw error
    }
    this.#bus.publish(stored)
    return stored
  }

  /** Writes whatever is queued; the tick's appends share one transaction. */
  flush(): void {
    this.#flushScheduled = false
    const queued = this.#takeQueue()
    if (queued.length === 0) return
    let stored: StoredEvent[]
    try {
      stored = this.#store.transaction(() => {
        const at = new Date().toISOString()
        return queued.map((item) => this.#write(item, at))
      })
    } catch (error) {
      this.#forgetSeqs(queued.map((item) => item.event.sessionId))
      for (const item of queued) item.reject(error)
      return
    }
    this.#deliver(queued, stored)
  }

  lastSeq(sessionId: string): number {
    let seq = this.#lastSeq.get(sessionId)
    if (seq === undefined) {
      seq = this.#store.lastSeq(sessionId)
      this.#lastSeq.set(sessionId, seq)
    }
    return seq
  }

  #takeQueue(): Pending[] {
    const queued = this.#queue
    this.#queue = []
    return queued
  }

  #write(item: Pending, at: string): StoredEvent {
    item.change?.(this.#store, at)
    const sessionId = item.event.sessionId
    const seq = this.lastSeq(sessionId) + 1
    this.#lastSeq.set(sessionId, seq)
    const { type, sessionId: _sessionId, ...rest } = item.event
    const stored: StoredEvent = { sessionId, seq, type, data: JSON.stringify({ type, sessionId, seq, at, ...rest }) }
    this.#store.insertEvent(stored, at)
    return stored
  }

  // After a rolled-back transaction the cached numbers are ahead of the database.
  #forgetSeqs(sessionIds: readonly string[]): void {
    for (const sessionId of sessionIds) this.#lastSeq.delete(sessionId)
  }

  #deliver(queued: readonly Pending[], stored: readonly StoredEvent[]): void {
    for (let i = 0; i < stored.length; i++) {
      const event = stored[i] as StoredEvent
      this.#bus.publish(event)
      queued[i]?.resolve(event)
    }
  }
}

function noop(): void {}
