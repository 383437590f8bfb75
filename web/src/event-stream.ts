/**
 * @module A session's events over SSE (`?access_token=` when a token is set: an EventSource
 * cannot send headers). A long history is read with fetch (stream-fetch.ts), which then carries
 * the live events too until it breaks; from there on, and for a short history from the start,
 * an EventSource. The browser resumes it by Last-Event-ID after a drop; after a refusal the
 * stream is opened again from the last applied id. Events are applied in batches.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { SessionEvent } from '../../src/contracts/session-events.js'
import { request, storedToken } from './api.js'
import { readEventStream } from './stream-fetch.js'
import { applyEvents, EMPTY_TIMELINE, SESSION_EVENT_TYPES, type Timeline } from './timeline.js'

export type ConnectionState = 'live' | 'reconnecting' | 'closed'

const REOPEN_MS = 3_000
/** A session with this many events or more is read with fetch: an EventSource would take about a second per 10,000 of them. */
const LONG_HISTORY = 2_000

function streamUrl(sessionId: string, after: number): string {
  const params = new URLSearchParams()
  if (after > 0) params.set('after', String(after))
  const token = storedToken()
  if (token !== undefined) params.set('access_token', token)
  const query = params.toString()
  return `/sessions/${encodeURIComponent(sessionId)}/events${query === '' ? '' : `?${query}`}`
}

export interface SessionEvents {
  readonly timeline: Timeline
  readonly connection: ConnectionState
  /** Why the stream stays closed (the session is gone), when it does. */
  readonly closedReason: string | undefined
}

export function useSessionEvents(sessionId: string, onEvent: (event: SessionEvent) => void): SessionEvents {
  const [timeline, setTimeline] = useState<Timeline>(EMPTY_TIMELINE)
  const [connection, setConnection] = useState<ConnectionState>('reconnecting')
  const [closedReason, setClosedReason] = useState<string | undefined>(undefined)
  const onEventRef = useRef(onEvent)
  onEventRef.current = onEvent
  useEffect(() => {
    let current = EMPTY_TIMELINE
    let queue: SessionEvent[] = []
    let flushTimer: ReturnType<typeof setTimeout> | undefined
    let reopenTimer: ReturnType<typeof setTimeout> | undefined
    let source: EventSource | undefined
    let stopped = false
    const fetching = new AbortController()

    const flush = (): void => {
      flushTimer = undefined
      const events = queue
      queue = []
      const before = current.lastSeq
      current = applyEvents(current, events)
      setTimeline(current)
      for (const event of events) if (event.seq > before) onEventRef.current(event)
    }
    const take = (events: readonly SessionEvent[]): void => {
      queue.push(...events)
      flushTimer ??= setTimeout(flush, 0)
    }
    const receive = (message: MessageEvent<string>): void => take([JSON.parse(message.data) as SessionEvent])
    const lastId = (): number => Math.max(current.lastSeq, queue.at(-1)?.seq ?? 0)
    const open = (): void => {
      if (stopped) return
      source = new EventSource(streamUrl(sessionId, lastId()))
      source.onopen = () => setConnection('live')
      source.onerror = () => {
        if (source?.readyState === EventSource.CONNECTING) {
          setConnection('reconnecting')
          return
        }
        // Refused (the server answered with an error, or is shutting down): check why before opening again.
        source?.close()
        void request('GET', `/sessions/${encodeURIComponent(sessionId)}`).then((reply) => {
          if (stopped) return
          if (reply.status === 404) {
            setConnection('closed')
            setClosedReason(`Session ${sessionId} does not exist (any more).`)
            return
          }
          setConnection('reconnecting')
          reopenTimer = setTimeout(open, REOPEN_MS)
        })
      }
      for (const type of SESSION_EVENT_TYPES) source.addEventListener(type, receive)
    }
    const start = async (): Promise<void> => {
      const reply = await request<{ lastEventId: number }>('GET', `/sessions/${encodeURIComponent(sessionId)}`)
      if (stopped) return
      if ((reply.body?.lastEventId ?? 0) < LONG_HISTORY) return open()
      const end = await readEventStream(streamUrl(sessionId, 0), fetching.signal, () => setConnection('live'), take)
      if (stopped) return
      // A refusal, or a break: the EventSource finds out why (and says so) or reconnects.
      if ('broken' in end) setConnection('reconnecting')
      open()
    }
    void start()
    return () => {
      stopped = true
      fetching.abort()
      source?.close()
      if (flushTimer !== undefined) clearTimeout(flushTimer)
      if (reopenTimer !== undefined) clearTimeout(reopenTimer)
    }
  }, [sessionId])
  return { timeline, connection, closedReason }
}
