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
  /** Undefined for a staged change that has no event of its own. */
  readonly event: ExecutorEvent | undefined
  readonly change: StateChange | undefined
  readonly resolve: (stored: StoredEvent) => void
  readonly reject: (error: unknown) => void
}

type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }
type Written = StoredEvent | undefined
const NOTHING_QUEUED: Attempt<Written[]> = { ok: true, value: [] }

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
    return new Promise<StoredEvent>((resolve, reject) => this.#enqueue({ event, change, resolve, reject }))
  }

  /**
   * A change with no event, written in order in the next commit of the queue (so it shares
   * the commit of the events that follow it instead of paying one of its own).
   */
  stage(change: StateChange): void {
    this.#enqueue({ event: undefined, change, resolve: noop, reject: noop })
  }

  #enqueue(item: Pending): void {
    this.#queue.push(item)
    if (!this.#flushScheduled) {
      this.#flushScheduled = true
      setImmediate(() => this.flush())
    }
  }

  /**
   * Writes what is queued, then this event, and returns it stored. Both share one commit
   * (the hot path of every POST), each behind its own savepoint: a change that throws here
   * (a rejected request) never takes queued events with it, nor they it.
   */
  appendNow(event: ExecutorEvent, change?: StateChange, before?: StateChange): StoredEvent {
    const queued = this.#takeQueue()
    let outcome: { earlier: Attempt<Written[]>; own: Attempt<StoredEvent> }
    try {
      outcome = this.#store.transaction(() => {
        const at = new Date().toISOString()
        const earlier = queued.length === 0 ? NOTHING_QUEUED : this.#savepoint(() => queued.map((item) => this.#write(item, at)))
        if (!earlier.ok) this.#forgetSeqs(sessionsOf(queued))
        const own = this.#savepoint(() => {
          before?.(this.#store, at)
          return this.#writeEvent(event, change, at)
        })
        return { earlier, own }
      })
    } catch (error) {
      this.#forgetSeqs(sessionsOf(queued).concat(event.sessionId))
      for (const item of queued) item.reject(error)
      throw error
    }
    const { earlier, own } = outcome
    if (earlier.ok) this.#deliver(queued, earlier.value)
    else for (const item of queued) item.reject(earlier.error)
    if (!own.ok) {
      this.#forgetSeqs([event.sessionId])
      throw own.error
    }
    this.#bus.publish(own.value)
    return own.value
  }

  /** Writes whatever is queued; the tick's appends share one transaction. */
  flush(): void {
    this.#flushScheduled = false
    const queued = this.#takeQueue()
    if (queued.length === 0) return
    let stored: Written[]
    try {
      stored = this.#store.transaction(() => {
        const at = new Date().toISOString()
        return queued.map((item) => this.#write(item, at))
      })
    } catch (error) {
      this.#forgetSeqs(sessionsOf(queued))
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

  #write(item: Pending, at: string): Written {
    if (item.event !== undefined) return this.#writeEvent(item.event, item.change, at)
    item.change?.(this.#store, at)
    return undefined
  }

  #writeEvent(event: ExecutorEvent, change: StateChange | undefined, at: string): StoredEvent {
    change?.(this.#store, at)
    const sessionId = event.sessionId
    const seq = this.lastSeq(sessionId) + 1
    this.#lastSeq.set(sessionId, seq)
    const { type, sessionId: _sessionId, ...rest } = event
    const stored: StoredEvent = { sessionId, seq, type, data: JSON.stringify({ type, sessionId, seq, at, ...rest }) }
    this.#store.insertEvent(stored, at)
    return stored
  }

  /** A nested transaction; an error SQLite answers by ending the whole transaction (I/O, full disk) fails the commit. */
  #savepoint<T>(write: () => T): Attempt<T> {
    try {
      return { ok: true, value: this.#store.transaction(write) }
    } catch (error) {
      if (!this.#store.db.inTransaction) throw error
      return { ok: false, error }
    }
  }

  // After a rolled-back transaction the cached numbers are ahead of the database.
  #forgetSeqs(sessionIds: readonly string[]): void {
    for (const sessionId of sessionIds) this.#lastSeq.delete(sessionId)
  }

  #deliver(queued: readonly Pending[], stored: readonly Written[]): void {
    for (let i = 0; i < stored.length; i++) {
      const event = stored[i]
      if (event === undefined) continue
      this.#bus.publish(event)
      queued[i]?.resolve(event)
    }
  }
}

function sessionsOf(queued: readonly Pending[]): string[] {
  return queued.flatMap((item) => (item.event === undefined ? [] : [item.event.sessionId]))
}

function noop(): void {}
