/**
 * @module The session event journal: every event gets the session's next sequence number
 * and is written, with the state change it stands for, in one transaction before anyone
 * sees it. Appends from one tick share a transaction (the hot path); a guarded append also
 * shares it, behind a savepoint of its own, so that a change that throws (a rejected request)
 * fails alone. appendNow writes at once, after whatever is queued.
 *
 * A commit that fails for want of space (full disk) loses nothing that already happened:
 * results, ends and decisions stay queued, in order, and are written when space returns
 * (retried with backoff, and at every later commit). What would start new work (a start, a
 * permission request, a guarded request) is refused with API_ERR_STORAGE_FULL instead, and
 * progress is dropped. A commit that fails because the database cannot be reached (PostgreSQL
 * restarting) keeps the same way, and retries until it answers; a start or a permission
 * request is kept too and waits for its commit, so a call begins only once it is on record,
 * and a schedule does not begin while the database is away (whenWritable).
 */
import { ToolexecError } from '../contracts/errors.js'
import type { ExecutorEvent } from '../contracts/events.js'
import type { StoredEvent } from '../contracts/store.js'
import type { Store } from '../contracts/store.js'
import { isStorageFull, isStorageUnavailable } from '../contracts/store.js'
import type { StorageRoom } from '../contracts/storage-room.js'
import type { EventBus } from './event-bus.js'
import { eventPolicy } from './event-policy.js'
import type { StateChange } from './state-change.js'

export type { StateChange }

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
  /** Called when a failed commit keeps it in memory, to be written when space returns. */
  readonly kept?: (() => void) | undefined
}

const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 5_000
/** A database that restarts is back within seconds: asked again at least this often. */
const MAX_UNAVAILABLE_RETRY_MS = 1_000

/** Why a failed commit keeps what it could not write. */
type KeptFor = 'full' | 'unavailable'

type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }
type Written = StoredEvent | undefined

export class EventJournal {
  readonly #store: Store
  readonly #bus: EventBus
  readonly #lastSeq = new Map<string, number>()
  readonly #gate: CommitGate | undefined
  #queue: Pending[] = []
  #flushScheduled = false
  #closed = false
  #holdingStarts = false
  /** Starts held while the server stops: never written, rejected at close. */
  #heldStarts: Pending[] = []
  readonly #space: StorageRoom | undefined
  /** How many items at the head of the queue a failed commit kept (want of space, or a database away). */
  #keptCount = 0
  /** Why the last failed commit kept them, and its error. */
  #keptFor: KeptFor = 'full'
  #keptCause: unknown = undefined
  #retryMs = FIRST_RETRY_MS
  #retryTimer: NodeJS.Timeout | undefined = undefined
  /** Resolved once what a database away kept is written (or the journal closes). */
  #writable: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined = undefined

  constructor(store: Store, bus: EventBus, gate?: CommitGate, space?: StorageRoom) {
    this.#store = store
    this.#bus = bus
    this.#gate = gate
    this.#space = space
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
   * Like append, but resolves as soon as the event is either written or kept in memory by a
   * commit that failed for want of space (it is then written when space returns), so that
   * what waits on it, a schedule's end, is not held by a full disk.
   */
  appendEnsured(event: ExecutorEvent, change?: StateChange): Promise<void> {
    return new Promise<void>((resolve, reject) => this.#enqueue({ event, change, guarded: false, resolve: () => resolve(), reject, kept: resolve }))
  }

  /**
   * Writes `change` now, in its own transaction; when there is no space for it, keeps it
   * to be written in order with the queue when space returns. For changes that end or stop
   * work (an abort, a close), which must take effect on a full disk too.
   */
  writeOrKeep(change: StateChange): void {
    try {
      this.#store.transaction(() => change(this.#store, new Date().toISOString()))
    } catch (error) {
      const why = keptFor(error)
      if (why === undefined) throw error
      if (why === 'full') this.#space?.markFull()
      this.stage(change)
    }
  }

  /**
   * Undefined while the database takes writes; while what a failed commit kept because it
   * could not be reached waits, a promise resolved once that is written: work that would
   * begin now (a queued schedule) waits for it, in order, instead of failing.
   */
  whenWritable(): Promise<void> | undefined {
    if (this.#keptCount === 0 || this.#keptFor !== 'unavailable' || this.#closed) return undefined
    if (this.#writable === undefined) {
      let resolve: () => void = noop
      const promise = new Promise<void>((done) => (resolve = done))
      this.#writable = { promise, resolve }
    }
    return this.#writable.promise
  }

  /** Items a failed commit kept in memory, not yet written. */
  get keptCount(): number {
    return this.#keptCount
  }

  /** Keys `sessionId callId` of the results kept in memory, not yet written. */
  keptResults(): Set<string> {
    return new Set(this.#keptEvents().flatMap((event) => (event.type === 'ToolCallResult' ? [`${event.sessionId} ${event.callId}`] : [])))
  }

  /** Schedules of the session whose end is kept in memory, not yet written. */
  keptScheduleEnds(sessionId: string): Set<string> {
    return new Set(this.#keptEvents().flatMap((event) => (event.type === 'ScheduleCompleted' && event.sessionId === sessionId ? [event.scheduleId] : [])))
  }

  #keptEvents(): ExecutorEvent[] {
    return this.#queue.slice(0, this.#keptCount).flatMap((item) => (item.event === undefined ? [] : [item.event]))
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
    let kept = 0
    for (const [index, item] of queued.entries()) {
      if (isStart(item)) this.#heldStarts.push(item)
      else {
        this.#queue.push(item)
        if (index < this.#keptCount) kept++
      }
    }
    this.#keptCount = kept
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
    // Written before what a failed commit kept, it would come before it in the session's order.
    if (this.#keptCount > 0) throw this.#keptError()
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
    clearTimeout(this.#retryTimer)
    const kept = this.#queue.splice(0)
    const error = this.#keptError()
    this.#keptCount = 0
    this.#wakeWaiters()
    for (const item of kept) item.reject(error)
    for (const item of this.#heldStarts.splice(0)) item.reject(shuttingDown())
  }

  /** Writes whatever is queued; the tick's appends share one transaction. */
  flush(): void {
    this.#flushScheduled = false
    const queued = this.#refuseStartsWhenFull(this.#takeQueue())
    if (queued.length === 0) return
    let outcomes: Attempt<Written>[]
    try {
      outcomes = this.#store.transaction(() => {
        const at = new Date().toISOString()
        return queued.map((item) => (item.guarded ? this.#writeGuarded(item, at) : { ok: true, value: this.#write(item, at) }))
      })
    } catch (error) {
      this.#forgetSeqs(sessionsOf(queued))
      const why = keptFor(error)
      if (why !== undefined) this.#keep(queued, error, why)
      else for (const item of queued) item.reject(error)
      return
    }
    this.#keptCount = 0
    this.#retryMs = FIRST_RETRY_MS
    this.#wakeWaiters()
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

  /**
   * Forgets the session's sequence (its events were deleted), and what a failed commit kept
   * of it; a new session of that id starts at 1.
   */
  forget(sessionId: string): void {
    this.#lastSeq.delete(sessionId)
    const kept = this.#queue.slice(0, this.#keptCount)
    const remaining = kept.filter((item) => item.event?.sessionId !== sessionId)
    this.#queue.splice(0, kept.length, ...remaining)
    this.#keptCount = remaining.length
  }

  lastSeq(sessionId: string): number {
    let seq = this.#lastSeq.get(sessionId)
    if (seq === undefined) {
      seq = this.#store.lastSeq(sessionId)
      this.#lastSeq.set(sessionId, seq)
    }
    return seq
  }

  /**
   * After a commit failed for want of space or of the database: what already happened stays
   * at the head of the queue, in order, for the next commit (a retry, or any later append).
   * A guarded request is refused; what would begin something new is refused on a full disk,
   * and waits for its commit while the database is away (progress is dropped).
   */
  #keep(queued: readonly Pending[], cause: unknown, why: KeptFor): void {
    if (why === 'full') this.#space?.markFull()
    this.#keptFor = why
    this.#keptCause = cause
    const kept: Pending[] = []
    for (const item of queued) {
      if (refusedWhenKept(item, why)) item.reject(this.#keptError(cause))
      else kept.push(item)
    }
    this.#queue = [...kept, ...this.#queue]
    this.#keptCount = kept.length
    for (const item of kept) if (!(why === 'unavailable' && waitsForDatabase(item))) item.kept?.()
    if (kept.length > 0) this.#scheduleRetry()
  }

  /**
   * While the data directory has no room, nothing new begins, though its small commit may
   * still fit (a WAL with room to reuse): a start, a permission request or progress is refused
   * before it is written, and the call ends failed with API_ERR_STORAGE_FULL without starting.
   */
  #refuseStartsWhenFull(queued: Pending[]): Pending[] {
    if (this.#space === undefined || !queued.some(refusedWhenFull) || !this.#space.fullNow()) return queued
    const error = this.#space.error()
    const kept = this.#keptCount
    const left: Pending[] = []
    for (const [index, item] of queued.entries()) {
      if (!refusedWhenFull(item)) left.push(item)
      else {
        if (index < kept) this.#keptCount--
        item.reject(error)
      }
    }
    return left
  }

  #wakeWaiters(): void {
    this.#writable?.resolve()
    this.#writable = undefined
  }

  #scheduleRetry(): void {
    if (this.#retryTimer !== undefined || this.#closed) return
    const most = this.#keptFor === 'unavailable' ? MAX_UNAVAILABLE_RETRY_MS : MAX_RETRY_MS
    const delay = Math.min(most, this.#retryMs)
    this.#retryMs = Math.min(most, delay * 2)
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      this.flush()
    }, delay)
    this.#retryTimer.unref()
  }

  /** The error of what a failed commit could not write: the database's own when it was away. */
  #keptError(cause: unknown = this.#keptCause): unknown {
    if (this.#keptFor === 'unavailable' && cause !== undefined) return cause
    return this.#space?.error(cause) ?? new ToolexecError('API_ERR_STORAGE_FULL', ['(unknown)'], { cause })
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
      if (!this.#store.inTransaction) throw error
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

function keptFor(error: unknown): KeptFor | undefined {
  if (isStorageFull(error)) return 'full'
  return isStorageUnavailable(error) ? 'unavailable' : undefined
}

function refusedWhenKept(item: Pending, why: KeptFor): boolean {
  if (item.guarded) return true
  if (item.event === undefined) return false
  const policy = eventPolicy(item.event.type)
  return policy.refusedWhenFull && (why === 'full' || !policy.waitsForDatabase)
}

function refusedWhenFull(item: Pending): boolean {
  return item.event !== undefined && eventPolicy(item.event.type).refusedWhenFull
}

function waitsForDatabase(item: Pending): boolean {
  return item.event !== undefined && eventPolicy(item.event.type).waitsForDatabase
}

function isStart(item: Pending): boolean {
  return item.event !== undefined && eventPolicy(item.event.type).heldWhileStopping
}

function noop(): void {}

function shuttingDown(): ToolexecError {
  return new ToolexecError('API_ERR_SHUTTING_DOWN')
}

/** True for the failure of an append made after the journal closed: expected while shutting down. */
export function isShutdownFailure(error: unknown): boolean {
  return error instanceof ToolexecError && error.code === 'API_ERR_SHUTTING_DOWN'
}
