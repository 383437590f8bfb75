/**
 * @module Group commit: while a few transactions of mergeable units are in flight, the units
 * committed meanwhile wait and then go together, as one unit (unit-recorder.ts mergeUnits): one
 * transaction, one fence, one statement per kind of repeated write and one notification for all
 * of them, where each would have paid its own. An idle store sends a unit at once. When the
 * database refuses the group (a lease another server took, a key taken), each unit is sent
 * again alone, so that only what failed fails; when the database is away, the group's units all
 * get its error, as each alone would have.
 */
import { isUnavailable } from './pg-errors.js'
import { POOL_SIZE } from './pg-pool.js'

interface Waiting<U> {
  readonly unit: U
  readonly resolve: () => void
  readonly reject: (error: unknown) => void
}

export interface GroupSender<U> {
  /** Commits the units as one transaction. */
  together(units: readonly U[]): Promise<void>
  /** Commits one unit as its own transaction. */
  alone(unit: U): Promise<void>
}

/**
 * At most as many as the pool has connections (pg-pool.ts). One is sent while none is in
 * flight; another only once every group in flight has waited STALLED_MS for its answer, so
 * that what comes meanwhile shares the next transaction, as a database's own group commit
 * does, while a unit the database holds up (a lock, a slow trigger) holds no other session's
 * unit back for longer than that.
 */
export const GROUPS_IN_FLIGHT = POOL_SIZE
/** Longer than a commit takes here (a few ms with its WAL flush), far shorter than a client notices. */
export const STALLED_MS = 10
/** Bounds a group's query text (every value is written into it). */
const MAX_GROUP_UNITS = 64

export class GroupCommit<U> {
  readonly #sender: GroupSender<U>
  readonly #maxInFlight: number
  #waiting: Waiting<U>[] = []
  /** The groups in flight, by when each was sent (one object each: two may share a time). */
  readonly #inFlight = new Set<{ readonly sentAt: number }>()
  #recheck: NodeJS.Timeout | undefined = undefined

  constructor(sender: GroupSender<U>, maxInFlight = GROUPS_IN_FLIGHT) {
    this.#sender = sender
    this.#maxInFlight = maxInFlight
  }

  /** Settles once the unit is committed, with its group or alone. */
  commit(unit: U): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ unit, resolve, reject })
      this.#sendWaiting()
    })
  }

  #sendWaiting(): void {
    while (this.#waiting.length > 0 && this.#maySend()) {
      const group = this.#waiting.splice(0, MAX_GROUP_UNITS)
      const sent = { sentAt: performance.now() }
      this.#inFlight.add(sent)
      void this.#send(group).finally(() => {
        this.#inFlight.delete(sent)
        this.#sendWaiting()
      })
    }
    if (this.#waiting.length > 0) this.#recheckWhenStalled()
  }

  #maySend(): boolean {
    if (this.#inFlight.size === 0) return true
    if (this.#inFlight.size >= this.#maxInFlight) return false
    return performance.now() - this.#newestSent() >= STALLED_MS
  }

  #newestSent(): number {
    let newest = 0
    for (const { sentAt } of this.#inFlight) newest = Math.max(newest, sentAt)
    return newest
  }

  /** Waiting units go once the groups in flight count as stalled, if none has answered by then. */
  #recheckWhenStalled(): void {
    if (this.#recheck !== undefined || this.#inFlight.size >= this.#maxInFlight) return
    const inMs = Math.max(0, STALLED_MS - (performance.now() - this.#newestSent()))
    this.#recheck = setTimeout(() => {
      this.#recheck = undefined
      this.#sendWaiting()
    }, inMs)
    this.#recheck.unref()
  }

  async #send(group: readonly Waiting<U>[]): Promise<void> {
    const [only] = group
    if (group.length === 1 && only !== undefined) return this.#sendAlone(only)
    try {
      await this.#sender.together(group.map((waiting) => waiting.unit))
    } catch (error) {
      if (isUnavailable(error)) for (const waiting of group) waiting.reject(error)
      else await Promise.all(group.map((waiting) => this.#sendAlone(waiting)))
      return
    }
    for (const waiting of group) waiting.resolve()
  }

  async #sendAlone(waiting: Waiting<U>): Promise<void> {
    try {
      await this.#sender.alone(waiting.unit)
      waiting.resolve()
    } catch (error) {
      waiting.reject(error)
    }
  }
}
