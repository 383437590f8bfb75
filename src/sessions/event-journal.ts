/**
 * @module The session event journal: every event gets the session's next sequence number
 * and is written, with the state change it stands for, in one unit of work before anyone
 * sees it. Appends from one tick share a unit (the hot path); a guarded append is a unit of
 * its own, so that a change that throws or a key the database refuses (a rejected request)
 * fails alone. appendNow writes at once, after whatever is queued. One commit is in flight at
 * a time and units commit in queue order: sequence numbers stay gapless per session, and what
 * queues meanwhile shares the next commit.
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
import type { Store, StoredEvent, UnitOfWork } from '../contracts/store.js'
import { isStorageFull, isStorageUnavailable, mayHaveCommitted, StoreConflictError } from '../contracts/store.js'
import type { StorageRoom } from '../contracts/storage-room.js'
import type { EventBus } from './event-bus.js'
import { eventPolicy } from './event-policy.js'
import type { StateChange } from './state-change.js'

export type { StateChange }

/** A promise while commits should wait (the WAL is being caught up); else undefined. */
export type CommitGate = () => Promise<void> | undefined

interface Pending {
  /** The session it belongs to: units of one session commit one after another. */
  readonly sessionId: string
  /** Undefined for a staged change that has no event of its own. */
  readonly event: ExecutorEvent | undefined
  readonly change: StateChange | undefined
  /** A change that may throw or be refused: it is a unit of its own and only its append fails. */
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

/** A commit that failed for want of space or of the database. */
interface Kept {
  readonly error: unknown
  readonly why: KeptFor
}

type Written = StoredEvent | undefined

export class EventJournal {
  readonly #store: Store
  readonly #bus: EventBus
  /** Each session's last committed sequence number, once read. */
  readonly #lastSeq = new Map<string, number>()
  /** Items of a unit whose commit lost its connection: it may have landed (see #landedBefore). */
  readonly #uncertain = new WeakSet<Pending>()
  readonly #gate: CommitGate | undefined
  readonly #space: StorageRoom | undefined
  /** Appended, not yet taken by a flush. */
  #queue: Pending[] = []
  /** What failed commits kept (want of space, or a database away), in order: written before the queue. */
  #kept: Pending[] = []
  /** Taken back from a flush in flight (held starts, a deleted session's writes): not written. */
  readonly #withdrawn = new WeakSet<Pending>()
  /** Sessions with a batch in flight: what they append waits for it, other sessions' batches commit meanwhile. */
  readonly #busy = new Set<string>()
  /** Batches being committed, with their items; they never reject. */
  readonly #inFlight = new Map<Promise<void>, readonly Pending[]>()
  #flushScheduled = false
  #closed = false
  #holdingStarts = false
  /** Starts held while the server stops: never written, rejected at close. */
  #heldStarts: Pending[] = []
  /** Why the last failed commit kept what it kept, and its error. */
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
    return new Promise<StoredEvent>((resolve, reject) => this.#enqueue({ sessionId: event.sessionId, event, change, guarded: false, resolve, reject }))
  }

  /**
   * Like append, for a change that may throw (a request checked against the stored state) or
   * be refused by a key: it is a unit of its own, and when it fails, nothing of it is written
   * and only this promise rejects, with the change's error.
   */
  appendGuarded(event: ExecutorEvent, change: StateChange): Promise<StoredEvent> {
    return new Promise<StoredEvent>((resolve, reject) => this.#enqueue({ sessionId: event.sessionId, event, change, guarded: true, resolve, reject }))
  }

  /**
   * Like append, but resolves as soon as the event is either written or kept in memory by a
   * commit that failed for want of space (it is then written when space returns), so that
   * what waits on it, a schedule's end, is not held by a full disk.
   */
  appendEnsured(event: ExecutorEvent, change?: StateChange): Promise<void> {
    return new Promise<void>((resolve, reject) => this.#enqueue({ sessionId: event.sessionId, event, change, guarded: false, resolve: () => resolve(), reject, kept: resolve }))
  }

  /**
   * Writes what is queued, then this event at once in a unit of its own, and returns it
   * stored. Refused while a failed commit keeps earlier writes: written before them, it would
   * come before them in the session's order.
   */
  async appendNow(event: ExecutorEvent, change?: StateChange): Promise<StoredEvent> {
    if (this.#closed) throw shuttingDown()
    await this.flush()
    if (this.#kept.length > 0) throw this.#keptError()
    const stored = new Promise<StoredEvent>((resolve, reject) => this.#enqueue({ sessionId: event.sessionId, event, change, guarded: true, resolve, reject }))
    void this.flush()
    return stored
  }

  /**
   * Writes `change` now, after what is queued; when there is no space or no database for it,
   * keeps it to be written in order with the queue when they return. For changes that end or
   * stop work (an abort, a close), which must take effect on a full disk too. Resolves once
   * it is written or kept.
   */
  writeOrKeep(sessionId: string, change: StateChange): Promise<void> {
    const written = new Promise<void>((resolve, reject) => this.#enqueue({ sessionId, event: undefined, change, guarded: false, resolve: () => resolve(), reject, kept: resolve }))
    void this.flush()
    return written
  }

  /**
   * A change with no event, written in order in the next commit of the queue (so it shares
   * the commit of the events that follow it instead of paying one of its own).
   */
  stage(sessionId: string, change: StateChange): void {
    this.#enqueue({ sessionId, event: undefined, change, guarded: false, resolve: noop, reject: noop })
  }

  /**
   * Undefined while the database takes writes; while what a failed commit kept because it
   * could not be reached waits, a promise resolved once that is written: work that would
   * begin now (a queued schedule) waits for it, in order, instead of failing.
   */
  whenWritable(): Promise<void> | undefined {
    if (this.#kept.length === 0 || this.#keptFor !== 'unavailable' || this.#closed) return undefined
    if (this.#writable === undefined) {
      let resolve: () => void = noop
      const promise = new Promise<void>((done) => (resolve = done))
      this.#writable = { promise, resolve }
    }
    return this.#writable.promise
  }

  /** Items a failed commit kept in memory, not yet written. */
  get keptCount(): number {
    return this.#kept.length
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
    return this.#kept.flatMap((item) => (item.event === undefined ? [] : [item.event]))
  }

  /**
   * From now on a call's start is held, never written: a call that had not started stays
   * unstarted (it runs at the next start), while calls already running finish and are recorded.
   * A start queued or kept but not yet written is held too: its handler has not run.
   */
  holdStarts(): void {
    this.#holdingStarts = true
    const hold = (items: Pending[]): Pending[] => items.filter((item) => !isStart(item) || !this.#withdraw(item, this.#heldStarts))
    this.#queue = hold(this.#queue)
    this.#kept = hold(this.#kept)
  }

  /**
   * Forgets the session's sequence (its events were deleted), and what a failed commit kept
   * of it; a new session of that id starts at 1.
   */
  forget(sessionId: string): void {
    this.#lastSeq.delete(sessionId)
    this.#kept = this.#kept.filter((item) => item.sessionId !== sessionId || !this.#withdraw(item))
  }

  /** The session's last committed sequence number. */
  async lastSeq(sessionId: string): Promise<number> {
    return this.#lastSeq.get(sessionId) ?? (await this.#store.events.lastSeq(sessionId))
  }

  /** Writes what is queued; from then on every append fails with API_ERR_SHUTTING_DOWN. */
  async close(): Promise<void> {
    await this.flush()
    this.#closed = true
    clearTimeout(this.#retryTimer)
    const error = this.#keptError()
    const left = [...this.#kept.splice(0), ...this.#queue.splice(0)]
    this.#wakeWaiters()
    for (const item of left) item.reject(error)
    for (const item of this.#heldStarts.splice(0)) item.reject(shuttingDown())
  }

  /**
   * Writes what was kept, then what is queued, as batches: a run of appends shares one unit, a
   * guarded one is a unit of its own. A session with a batch in flight waits for it; other
   * sessions' batches commit meanwhile. Resolves once everything appended before the call is
   * written, refused or kept; what is appended meanwhile does not hold it.
   */
  async flush(): Promise<void> {
    this.#flushScheduled = false
    const before = new Set<Pending>([...this.#kept, ...this.#queue, ...[...this.#inFlight.values()].flat()])
    for (;;) {
      this.#startReady()
      const holding = [...this.#inFlight].filter(([, items]) => items.some((item) => before.has(item)))
      if (holding.length === 0) return
      await Promise.all(holding.map(([done]) => done))
      // What a failed commit kept waits for its retry, not for this flush.
      if (this.#kept.some((item) => before.has(item))) return
    }
  }

  /** Starts a batch of every item whose session has none in flight. */
  #startReady(): void {
    const ready = (items: Pending[]): Pending[] => items.filter((item) => !this.#busy.has(item.sessionId))
    const waiting = (items: Pending[]): Pending[] => items.filter((item) => this.#busy.has(item.sessionId))
    const taken = [...ready(this.#kept), ...ready(this.#queue)]
    this.#queue = waiting(this.#queue)
    const batch = this.#refuseStartsWhenFull(taken)
    if (batch.length === 0) return
    const sessions = new Set(batch.map((item) => item.sessionId))
    for (const sessionId of sessions) this.#busy.add(sessionId)
    const done: Promise<void> = this.#commitInOrder(batch).finally(() => {
      for (const sessionId of sessions) this.#busy.delete(sessionId)
      this.#inFlight.delete(done)
      if (this.#hasReady(this.#queue)) this.#scheduleFlush()
    })
    this.#inFlight.set(done, batch)
  }

  #hasReady(items: readonly Pending[]): boolean {
    return items.some((item) => !this.#busy.has(item.sessionId))
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
    this.#scheduleFlush()
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return
    this.#flushScheduled = true
    setImmediate(() => this.#flushWhenOpen())
  }

  // What queues up while the gate is shut joins the same commit.
  #flushWhenOpen(): void {
    const shut = this.#gate?.()
    if (shut === undefined) void this.flush()
    else void shut.then(() => this.flush())
  }

  /**
   * Commits the batch as one unit; when that is refused (a guarded change threw, a key was
   * taken), commits it again unit by unit, a guarded item alone, so that only what failed fails.
   */
  async #commitInOrder(batch: Pending[]): Promise<void> {
    const whole = await this.#commitUnit(batch, batch.length === unitEnd(batch, 0))
    if (whole === 'refused') await this.#commitOneByOne(batch)
    else if (whole !== undefined) this.#keep(batch, whole.error, whole.why)
  }

  // Each session's items apart: one whose lease another server took fails alone (a cluster).
  async #commitOneByOne(batch: Pending[]): Promise<void> {
    const ordered = bySession(batch)
    for (let start = 0; start < ordered.length;) {
      const end = unitEnd(ordered, start)
      const failure = await this.#commitUnit(ordered.slice(start, end), true)
      if (failure !== undefined && failure !== 'refused') {
        this.#keep(ordered.slice(start), failure.error, failure.why)
        return
      }
      start = end
    }
  }

  /**
   * Commits one unit. A failure for want of space or of the database is returned: the unit and
   * what follows wait. Any other failure rejects the unit's items when it is `final`, else it is
   * returned as 'refused' for the caller to try the items in smaller units.
   */
  async #commitUnit(items: readonly Pending[], final: boolean): Promise<Kept | 'refused' | undefined> {
    const unit = items.filter((item) => !this.#withdrawn.has(item))
    if (unit.length === 0) return undefined
    let seqs = new Map<string, number>()
    let written: Written[]
    try {
      await this.#readLastSeqs(unit)
      const at = new Date().toISOString()
      written = await this.#store.commit((work) => unit.map((item) => this.#write(work, item, at, seqs)))
    } catch (error) {
      const landed = error instanceof StoreConflictError && unit.some((item) => this.#uncertain.has(item)) ? await this.#landedBefore(unit) : undefined
      if (landed !== undefined) {
        ;({ written, seqs } = landed)
      } else {
        const why = keptFor(error)
        if (why === 'unavailable') for (const item of unit) this.#uncertain.add(item)
        if (why !== undefined) return { error, why }
        if (!final) return 'refused'
        this.#settled(unit)
        for (const item of unit) item.reject(error)
        return undefined
      }
    }
    for (const [sessionId, seq] of seqs) this.#lastSeq.set(sessionId, seq)
    this.#settled(unit)
    this.#retryMs = FIRST_RETRY_MS
    for (const [index, item] of unit.entries()) {
      const stored = written[index]
      if (stored !== undefined) this.#bus.publish(stored)
      item.resolve(stored as StoredEvent)
    }
    return undefined
  }

  /**
   * A unit whose commit lost its connection may have landed, its answer lost with it: tried
   * again, its events' keys are taken. Only this server writes its sessions' events, so events
   * past the last number it knows, of the unit's types in its order, are that unit's: it is
   * written, and what it stored is read back. Undefined when they are not there.
   */
  async #landedBefore(unit: readonly Pending[]): Promise<{ written: Written[]; seqs: Map<string, number> } | undefined> {
    const seqs = new Map<string, number>()
    const stored = new Map<string, StoredEvent[]>()
    try {
      for (const sessionId of new Set(sessionsOf(unit))) {
        const count = sessionsOf(unit).filter((id) => id === sessionId).length
        const events = await this.#store.events.after(sessionId, this.#lastSeq.get(sessionId) ?? 0, count)
        if (events.length < count) return undefined
        stored.set(sessionId, events)
      }
    } catch {
      return undefined
    }
    const written = unit.map((item): Written => {
      if (item.event === undefined) return undefined
      const next = seqs.get(item.sessionId) ?? 0
      seqs.set(item.sessionId, next + 1)
      return stored.get(item.sessionId)?.[next]
    })
    const matches = unit.every((item, index) => item.event === undefined || written[index]?.type === item.event.type)
    if (!matches) return undefined
    for (const [sessionId, count] of seqs) seqs.set(sessionId, (this.#lastSeq.get(sessionId) ?? 0) + count)
    return { written, seqs }
  }

  /** The unit is written or refused: no longer kept. */
  #settled(unit: readonly Pending[]): void {
    if (this.#kept.length === 0) return
    const done = new Set(unit)
    this.#kept = this.#kept.filter((item) => !done.has(item))
    if (this.#kept.length === 0) this.#wakeWaiters()
  }

  /** The last committed number of every session of `unit` whose number is not known yet. */
  async #readLastSeqs(unit: readonly Pending[]): Promise<void> {
    for (const sessionId of new Set(sessionsOf(unit))) {
      if (!this.#lastSeq.has(sessionId)) this.#lastSeq.set(sessionId, await this.#store.events.lastSeq(sessionId))
    }
  }

  /** Takes `item` out of what is queued or kept, so that a flush in flight skips it too. */
  #withdraw(item: Pending, into?: Pending[]): true {
    this.#withdrawn.add(item)
    into?.push(item)
    return true
  }

  /**
   * After a commit failed for want of space or of the database: what already happened stays
   * kept, in order, for the next commit (a retry, or any later flush). A guarded request is
   * refused; what would begin something new is refused on a full disk, and waits for its
   * commit while the database is away (progress is dropped).
   */
  #keep(items: readonly Pending[], cause: unknown, why: KeptFor): void {
    if (why === 'full') this.#space?.markFull()
    this.#keptFor = why
    this.#keptCause = cause
    const kept: Pending[] = []
    // A guarded change whose commit may have landed waits to know, not refused for a 503 the client would retry.
    const mayHaveLanded = why === 'unavailable' && mayHaveCommitted(cause)
    for (const item of items) {
      if (this.#withdrawn.has(item)) continue
      if (refusedWhenKept(item, why) && !(mayHaveLanded && item.guarded)) item.reject(this.#keptError(cause))
      else kept.push(item)
    }
    // The batch held every kept item of its sessions: these replace them; anything queued meanwhile stays after them.
    const batch = new Set(items)
    this.#kept = [...this.#kept.filter((item) => !batch.has(item)), ...kept]
    for (const item of kept) if (!(why === 'unavailable' && waitsForDatabase(item))) item.kept?.()
    if (kept.length > 0) this.#scheduleRetry()
    else this.#wakeWaiters()
  }

  /**
   * While the data directory has no room, nothing new begins, though its small commit may
   * still fit (a WAL with room to reuse): a start, a permission request or progress is refused
   * before it is written, and the call ends failed with API_ERR_STORAGE_FULL without starting.
   */
  #refuseStartsWhenFull(batch: Pending[]): Pending[] {
    if (this.#space === undefined || !batch.some(refusedWhenFull) || !this.#space.fullNow()) return batch
    const error = this.#space.error()
    const refused = batch.filter(refusedWhenFull)
    this.#settled(refused)
    for (const item of refused) item.reject(error)
    return batch.filter((item) => !refusedWhenFull(item))
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
      void this.flush()
    }, delay)
    this.#retryTimer.unref()
  }

  /** The error of what a failed commit could not write: the database's own when it was away. */
  #keptError(cause: unknown = this.#keptCause): unknown {
    if (this.#keptFor === 'unavailable' && cause !== undefined) return cause
    return this.#space?.error(cause) ?? new ToolexecError('API_ERR_STORAGE_FULL', ['(unknown)'], { cause })
  }

  #write(work: UnitOfWork, item: Pending, at: string, seqs: Map<string, number>): Written {
    item.change?.(work, at)
    if (item.event === undefined) return undefined
    const { type, sessionId, ...rest } = item.event
    const seq = (seqs.get(sessionId) ?? this.#lastSeq.get(sessionId) ?? 0) + 1
    seqs.set(sessionId, seq)
    const stored: StoredEvent = { sessionId, seq, type, data: JSON.stringify({ type, sessionId, seq, at, ...rest }) }
    work.events.insert(stored, at)
    return stored
  }
}

/** Where the unit that begins at `start` ends: a guarded item is a unit of its own, a run of the others of one session shares one. */
function unitEnd(queued: readonly Pending[], start: number): number {
  const first = queued[start] as Pending
  if (first.guarded) return start + 1
  let end = start + 1
  while (end < queued.length && !(queued[end] as Pending).guarded && (queued[end] as Pending).sessionId === first.sessionId) end++
  return end
}

/** The items grouped by session, each session's in their order, the sessions in order of their first item. */
function bySession(items: readonly Pending[]): Pending[] {
  const groups = new Map<string, Pending[]>()
  for (const item of items) {
    const group = groups.get(item.sessionId)
    if (group === undefined) groups.set(item.sessionId, [item])
    else group.push(item)
  }
  return [...groups.values()].flat()
}

function sessionsOf(queued: readonly Pending[]): string[] {
  return queued.flatMap((item) => (item.event === undefined ? [] : [item.sessionId]))
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
