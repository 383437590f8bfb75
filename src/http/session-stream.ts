/**
 * @module One client's SSE stream of a session: stored events after its last id are
 * replayed in pages bounded by count and size, each one joined write, taking turns on the
 * event loop with every other replaying client (ReplayPacer), then live events follow with nothing lost or doubled at the
 * seam (the bus subscription starts before the first read, and every frame is sent only
 * if its seq is past the last one sent). A client that falls too far behind is disconnected
 * (what waited for it is dropped) and resumes by id. Frames that announce progress may wait
 * a few milliseconds to share a socket write with the frames that follow them; a result, an
 * approval or an end goes out at once, with whatever waited before it. Frames go out in
 * sequence only: a live event past a gap (the session ran on another node meanwhile), or a
 * wake-up from another node's commit, reads what is missing from the store first, as a
 * replay does.
 */
import type { ServerResponse } from 'node:http'
import type { StoredEvent } from '../contracts/store.js'
import type { EventFeed } from '../sessions/event-feed.js'
import { frameMayWait } from '../sessions/event-policy.js'
import { ReplayPacer, type PageOutcome, type Replayer } from './replay-pacer.js'

export interface StreamLimits {
  /** Events read per replay page (a page also ends at `replayPageChars`); each page goes out as one write. */
  readonly replayPage: number
  /** Characters of event data that end a replay page however few its events (at least one event makes a page). */
  readonly replayPageChars?: number
  /** Frames buffered for a slow client before it is closed. */
  readonly maxQueuedFrames: number
  /** Characters of event data buffered for a slow client before it is closed, however few the frames. */
  readonly maxQueuedChars?: number
}

// Room for the events of a call with the largest input a request body allows, with margin.
const DEFAULT_MAX_QUEUED_CHARS = 64 * 1024 * 1024

/**
 * A replay page also ends at this much event data: large events (a Write's content) would
 * otherwise make one page, and the one string written for it, as large as memory allows,
 * and hold the event loop as long as reading and joining it takes.
 */
const REPLAY_PAGE_CHARS = 1024 * 1024

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  replayPage: 5_000,
  replayPageChars: REPLAY_PAGE_CHARS,
  maxQueuedFrames: 10_000,
  maxQueuedChars: DEFAULT_MAX_QUEUED_CHARS,
}

/** Every stream of the process takes its turn here unless given a pacer of its own. */
const SHARED_PACER = new ReplayPacer()

function charsOf(events: readonly StoredEvent[]): number {
  let chars = 0
  for (const event of events) chars += event.data.length
  return chars
}

/** How long a progress frame may wait for company. */
export const COALESCE_MS = 5

/**
 * The reconnection delay a browser's EventSource takes after the stream drops (a restart, a
 * proxy's timeout): long enough not to hammer a server that is starting, short enough that a
 * page resumes, by Last-Event-ID, without the user noticing. Sent once, first on every stream.
 */
export const RECONNECT_DELAY_MS = 2_000
export const RETRY_FRAME = `retry: ${RECONNECT_DELAY_MS}\n\n`

/** The events that follow `lastSent` one by one, up to the first gap. */
function inSequence(events: readonly StoredEvent[], lastSent: number): readonly StoredEvent[] {
  let count = 0
  while (count < events.length && (events[count] as StoredEvent).seq === lastSent + count + 1) count++
  return count === events.length ? events : events.slice(0, count)
}

export function frameOf(event: StoredEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`
}

export class SessionStream {
  readonly #raw: ServerResponse
  readonly #limits: StreamLimits
  readonly #pacer: ReplayPacer
  #lastSent: number
  #replaying = true
  #queue: StoredEvent[] = []
  #queuedChars = 0
  #waitingForDrain = false
  /** One microtask flushes every frame a journal commit published, not one per frame. */
  #flushQueued = false
  #coalescing: NodeJS.Timeout | undefined = undefined
  #closed = false
  #unsubscribe: () => void = () => {}
  /** A catch-up was asked for while a replay ran: another follows it, unless this one sent what it was asked for. */
  #again = false
  /** The highest seq another node's commit was told to have added: Infinity when one was not told, until a replay starts. */
  #toldUpTo = 0
  #sessionId = ''
  #feed: Pick<EventFeed, 'subscribe' | 'eventsAfter'> | undefined

  constructor(raw: ServerResponse, afterSeq: number, limits: StreamLimits = DEFAULT_STREAM_LIMITS, pacer: ReplayPacer = SHARED_PACER) {
    this.#raw = raw
    this.#lastSent = afterSeq
    this.#limits = limits
    this.#pacer = pacer
  }

  get #pageChars(): number {
    return this.#limits.replayPageChars ?? REPLAY_PAGE_CHARS
  }

  get closed(): boolean {
    return this.#closed
  }

  async run(sessionId: string, feed: Pick<EventFeed, 'subscribe' | 'eventsAfter'>): Promise<void> {
    this.#sessionId = sessionId
    this.#feed = feed
    this.#unsubscribe = feed.subscribe(
      sessionId,
      (event) => this.#onLive(event),
      () => this.close(),
      (seq) => this.#catchUp(seq),
    )
    this.#raw.once('close', () => this.close())
    await this.#replay(sessionId, feed)
    this.#replayed()
  }

  /**
   * Reads what the store has past the last frame sent, as a replay; asked again while one runs,
   * runs once more after it. A wake-up told of events up to `seq` reads nothing once they are
   * sent: a read for an earlier commit found them already.
   */
  #catchUp(seq = Infinity): void {
    if (this.#closed || this.#feed === undefined) return
    this.#toldUpTo = Math.max(this.#toldUpTo, seq)
    if (this.#toldUpTo <= this.#lastSent) return
    if (this.#replaying) {
      this.#again = true
      return
    }
    this.#replaying = true
    // A read from now on finds every commit told of so far.
    if (this.#toldUpTo === Infinity) this.#toldUpTo = 0
    this.#replay(this.#sessionId, this.#feed).then(
      () => this.#replayed(),
      () => undefined,
    )
  }

  #replayed(): void {
    this.#replaying = false
    const again = this.#again && this.#toldUpTo > this.#lastSent
    this.#again = false
    if (again) this.#catchUp(0)
    else this.#flush()
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#coalescing)
    this.#unsubscribe()
    this.#queue = []
    this.#queuedChars = 0
    // A client behind on reading would hold its socket, and the frames buffered for it,
    // until it reads them, forever if it never does: it is cut off and resumes by id.
    if (this.#waitingForDrain) this.#raw.destroy()
    else if (!this.#raw.writableEnded) this.#raw.end()
  }

  /**
   * Resolves once every stored event after the resume point was sent, or the stream closed.
   * A turn either starts reading the next page or writes the page read: the client waits
   * parked while its page is read. A read that fails closes the stream (the client resumes
   * by id) and rejects.
   */
  #replay(sessionId: string, feed: Pick<EventFeed, 'eventsAfter'>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let page: readonly StoredEvent[] | undefined
      const read = (): void => {
        feed.eventsAfter(sessionId, this.#lastSent, this.#limits.replayPage, this.#pageChars).then(
          (events) => {
            page = events
            this.#pacer.ready(replayer)
          },
          (error: unknown) => {
            this.close()
            reject(error)
          },
        )
      }
      const replayer: Replayer = {
        replayPage: () => {
          if (this.#closed) {
            resolve()
            return 'done'
          }
          if (page === undefined) {
            read()
            return 'parked'
          }
          const outcome = this.#sendPage(page)
          page = undefined
          if (outcome === 'done') resolve()
          else if (outcome === 'parked') void this.#drained().then(() => this.#pacer.ready(replayer))
          return outcome
        },
      }
      this.#pacer.ready(replayer)
    })
  }

  /** Writes one page in one write: the last one when it is short of either bound. */
  #sendPage(page: readonly StoredEvent[]): PageOutcome {
    this.#writeFrames(page)
    this.#dropSent()
    if (this.#closed || (page.length < this.#limits.replayPage && charsOf(page) < this.#pageChars)) return 'done'
    return this.#waitingForDrain ? 'parked' : 'more'
  }

  #onLive(event: StoredEvent): void {
    if (this.#closed || event.seq <= this.#lastSent) return
    this.#queue.push(event)
    this.#queuedChars += event.data.length
    const behind = this.#replaying || this.#waitingForDrain
    if (behind && this.#overLimits()) {
      this.close()
      return
    }
    if (behind || this.#flushQueued) return
    if (!frameMayWait(event.type)) {
      this.#flushQueued = true
      queueMicrotask(() => this.#flush())
    } else if (this.#coalescing === undefined) {
      this.#coalescing = setTimeout(() => this.#flush(), COALESCE_MS)
    }
  }

  /**
   * Live events the replay has read from the store and sent meanwhile no longer wait: left in
   * the queue, they would count against the limits and cut off a client that keeps up.
   */
  #dropSent(): void {
    if (this.#queue.length === 0 || (this.#queue[0] as StoredEvent).seq > this.#lastSent) return
    this.#queue = this.#queue.filter((event) => event.seq > this.#lastSent)
    this.#queuedChars = charsOf(this.#queue)
  }

  /**
   * What waits for a client that is behind. A client keeping up gets what one commit
   * published in the next microtask, however large, so only a backlog is bounded. Frames
   * alone do not bound memory: one carrying a Write's content can be megabytes.
   */
  #overLimits(): boolean {
    const maxChars = this.#limits.maxQueuedChars ?? DEFAULT_MAX_QUEUED_CHARS
    return this.#queue.length > this.#limits.maxQueuedFrames || this.#queuedChars > maxChars
  }

  // Live frames wait until the replay is done: one sent early would move #lastSent past
  // stored events the replay has not read yet.
  #flush(): void {
    this.#flushQueued = false
    clearTimeout(this.#coalescing)
    this.#coalescing = undefined
    if (this.#closed || this.#replaying || this.#waitingForDrain || this.#queue.length === 0) return
    const pending = this.#queue.filter((event) => event.seq > this.#lastSent)
    const next = inSequence(pending, this.#lastSent)
    this.#queue = pending.slice(next.length)
    this.#queuedChars = charsOf(this.#queue)
    this.#writeFrames(next)
    if (this.#queue.length > 0) this.#catchUp()
  }

  /** All frames waiting for this client go out in one write. */
  #writeFrames(events: readonly StoredEvent[]): void {
    if (events.length === 0 || this.#closed) return
    let joined = ''
    for (const event of events) joined += frameOf(event)
    this.#lastSent = (events[events.length - 1] as StoredEvent).seq
    if (this.#raw.write(joined)) return
    this.#waitingForDrain = true
    void this.#drained().then(() => this.#flush())
  }

  /** Settles on drain or on close: a write pending on drain never settles after a disconnect. */
  #drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.#raw.off('drain', done)
        this.#raw.off('close', done)
        this.#waitingForDrain = false
        resolve()
      }
      this.#raw.once('drain', done)
      this.#raw.once('close', done)
    })
  }
}
