/**
 * The streams a floor cluster node (floor-cluster-child.ts) has of sessions another node runs:
 * fed from the table, each read once when it opens and again on each wake-up of the owner's
 * that adds to it; every stream due in one tick is read in one query, and those woken while it
 * runs are read in the next.
 */
import type { ServerResponse } from 'node:http'
import { framesOf } from './floor-calls.js'
import { EVENTS_PAGE, WAKE_ALL, type FloorClusterStore, type StoredFloorEvent } from './floor-cluster-store.js'

/** Streams of sessions another node runs, each with the last seq it was sent. */
export class RemoteStreams {
  readonly #store: FloorClusterStore
  readonly #streams = new Map<string, { readonly stream: ServerResponse; sent: number }>()
  #due = new Set<string>()
  #reading = false

  constructor(store: FloorClusterStore) {
    this.#store = store
  }

  add(sessionId: string, stream: ServerResponse): void {
    this.#streams.set(sessionId, { stream, sent: 0 })
    stream.on('close', () => this.#streams.delete(sessionId))
    this.#read(sessionId)
  }

  wake(payload: string): void {
    if (payload === WAKE_ALL) {
      for (const sessionId of this.#streams.keys()) this.#read(sessionId)
      return
    }
    for (const [sessionId, seq] of JSON.parse(payload) as [string, number][]) {
      const open = this.#streams.get(sessionId)
      if (open !== undefined && seq > open.sent) this.#read(sessionId)
    }
  }

  #read(sessionId: string): void {
    if (this.#due.size === 0 && !this.#reading) setImmediate(() => void this.#flush())
    this.#due.add(sessionId)
  }

  /** Each session's new events (read in order of session and seq) to its stream, once each. */
  #send(events: readonly StoredFloorEvent[]): void {
    for (let start = 0, end = 0; start < events.length; start = end) {
      const sessionId = (events[start] as StoredFloorEvent).sessionId
      while (end < events.length && (events[end] as StoredFloorEvent).sessionId === sessionId) end++
      const open = this.#streams.get(sessionId)
      const fresh = open === undefined ? [] : events.slice(start, end).filter((event) => event.seq > open.sent)
      if (open === undefined || fresh.length === 0) continue
      open.sent = (fresh[fresh.length - 1] as StoredFloorEvent).seq
      open.stream.write(framesOf(fresh))
      if (end - start === EVENTS_PAGE) this.#read(sessionId)
    }
  }

  /** One query for every session due; those woken while it runs are read next. */
  async #flush(): Promise<void> {
    const due = this.#due
    this.#due = new Set()
    this.#reading = true
    const after = new Map<string, number>()
    for (const sessionId of due) {
      const open = this.#streams.get(sessionId)
      if (open !== undefined) after.set(sessionId, open.sent)
    }
    try {
      if (after.size > 0) this.#send(await this.#store.eventsAfter(after))
    } finally {
      this.#reading = false
    }
    if (this.#due.size > 0) setImmediate(() => void this.#flush())
  }
}
