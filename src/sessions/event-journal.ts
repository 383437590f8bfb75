/**
 * @module The session event journal: every event gets the session's next sequence number
 * and is written, with the state change it stands for, in one transaction before anyone
 * sees it. Appends from one tick share a transaction (the hot path); a guarded append also
 * shares it, behind a savepoint of its own, so that a change that throws (a rejected request)
 * fails alone. appendNow writes at once, after whatever is queued.
 */
import { ToolexecError } from '../contracts/errors.js'
import type { ExecutorEvent } from '../contracts/events.js'
import type { StoredEvent } from '../contracts/store.js'
import type { SqliteStore } from '../storage/sqlite-store.js'
import type { EventBus } from './event-bus.js'

export type StateChange = (store: SqliteStore, at: string) => void

/** A promise while commits should wait (the WAL is being caught up); else undefined. */
export type CommitGate = () => Promise<void> | undefined

interface Pending {
  /** Undefined for a staged change that has no event of its own. */
  readonly event: ExecutorEvent | undefined
  readonly change: StateChange | undefined
  /** A change that may throw: it runs behind its own savepoint and only its append fails. */
  readonly guarded: boolean
  readonly resolve: (stored: StoredEvent) => void
  readonly reject: (error: unknown) => void
}

type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }
type Written = StoredEvent | undefined

export class EventJournal {
  readonly #store: SqliteStore
  readonly #bus: EventBus
  readonly #lastSeq = new Map<string, number>()
  readonly #gate: CommitGate | undefined
  #queue: Pending[] = []
  #flushScheduled = false
  #closed = false
  #holdingStarts = false
  /** Starts held while the server stops: never written, rejected at close. */
  #heldStarts: Pending[] = []

  constructor(store: SqliteStore, bus: EventBus, gate?: CommitGate) {
    this.#store = store
    this.#bus = bus
    this.#gate = gate
  }

  append(event: ExecutorEvent, change?: StateChange): Promise<StoredEvent> {
    return new Promise<StoredEvent>((resolve, reject) => this.#enqueue({ event, change, guarded: false, resolve, reject }))
  }

  /**
   * Like append, for a change that may throw (a request checked against the stored state): it
   * shares the tick's commit, and when it throws, nothing of it is written and only this
   * promise rejects, with the change's error.
   */
  appendGuarded(event: ExecutorEvent, change: StateChange): Promise<StoredEvent> {
    return new Promise<StoredEvent>((resolve, reject) => this.#enqueue({ event, change, guarded: true, resolve, reject }))
  }

  /**
   * A change with no event, written in order in the next commit of the queue (so it shares
   * the commit of the events that follow it instead of paying one of its own).
   */
  stage(change: StateChange): void {
    this.#enqueue({ event: undefined, change, guarded: false, resolve: noop, reject: noop })
  }

  /**
   * From now on a call's start is held, never written: a call that had not started stays
   * unstarted (it runs at the next start), while calls already running finish and are recorded.
   * A start queued but not yet written is held too: its handler has not run.
   */
  holdStarts(): void {
    this.#holdingStarts = true
    const queued = this.#takeQueue()
    for (const item of queued) (isStart(item) ? this.#heldStarts : this.#queue).push(item)
  }

  #enqueue(item: Pending): void {
    if (this.#closed) {
      item.reject(shuttingDown())
      return
    }
    if (this.#holdingStarts && isStart(item)) {
      this.#heldStarts.push(item)
      return
    }
    this.#queue.push(item)
    if (!this.#flushScheduled) {
      this.#flushScheduled = true
      setImmediate(() => this.#flushWhenOpen())
    }
  }

  // What queues up while the gate is shut joins the same commit.
  #flushWhenOpen(): void {
    const shut = this.#gate?.()
    if (shut === undefined) this.flush()
    else void shut.then(() => this.flush())
  }

  /** Writes what is queued (its own commit), then this event at once, and returns it stored. */
  appendNow(event: ExecutorEvent, change?: StateChange): StoredEvent {
    if (this.#closed) throw shuttingDown()
    this.flush()
    let stored: StoredEvent
    try {
      stored = this.#store.transaction(() => this.#writeEvent(event, change, new Date().toISOString()))
    } catch (error) {
      this.#forgetSeqs([event.sessionId])
      throw error
    }
    this.#bus.publish(stored)
    return stored
  }

  /** Writes what is queued; from then on every append fails with API_ERR_SHUTTING_DOWN. */
  close(): void {
    this.flush()
    this.#closed = true
    for (const item of this.#heldStarts.splice(0)) item.reject(shuttingDown())
  }

  /** Writes whatever is queued; the tick's appends share one transaction. */
  flush(): void {
    this.#flushScheduled = false
    const queued = this.#takeQueue()
    if (queued.length === 0) return
    let outcomes: Attempt<Written>[]
    try {
      outcomes = this.#store.transaction(() => {
        const at = new Date().toISOString()
        return queued.map((item) => (item.guarded ? this.#writeGuarded(item, at) : { ok: true, value: this.#write(item, at) }))
      })
    } catch (error) {
      this.#forgetSeqs(sessionsOf(queued))
      for (const item of queued) item.reject(error)
      return
    }
    for (let i = 0; i < outcomes.length; i++) {
      const outcome = outcomes[i] as Attempt<Written>
      const item = queued[i] as Pending
      if (!outcome.ok) item.reject(outcome.error)
      else if (outcome.value !== undefined) {
        this.#bus.publish(outcome.value)
        item.resolve(outcome.value)
      }
    }
  }

  /** Forgets the session's sequence (its events were deleted); a new session of that id starts at 1. */
  forget(sessionId: string): void {
    this.#lastSeq.delete(sessionId)
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

  #writeGuarded(item: Pending, at: string): Attempt<Written> {
    const attempt = this.#savepoint(() => this.#write(item, at))
    if (!attempt.ok && item.event !== undefined) this.#forgetSeqs([item.event.sessionId])
    return attempt
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
}

function sessionsOf(queued: readonly Pending[]): string[] {
  return queued.flatMap((item) => (item.event === undefined ? [] : [item.event.sessionId]))
}

function isStart(item: Pending): boolean {
  return item.event?.type === 'ToolCallStarted'
}

function noop(): void {}

function shuttingDown(): ToolexecError {
  return new ToolexecError('API_ERR_SHUTTING_DOWN')
}

/** True for the failure of an append made after the journal closed: expected while shutting down. */
export function isShutdownFailure(error: unknown): boolean {
  return error instanceof ToolexecError && error.code === 'API_ERR_SHUTTING_DOWN'
}
