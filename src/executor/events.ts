/** @module Emitting events without awaiting a synchronous sink (hot path). */
import type { EventSink, ExecutorEvent } from '../contracts/events.js'

export function emitEvent(sink: EventSink | undefined, event: ExecutorEvent): void | Promise<unknown> {
  if (sink === undefined) return
  return sink(event)
}

/** For progress: never blocks the handler, never leaves an unhandled rejection. */
export function emitDetached(sink: EventSink | undefined, event: ExecutorEvent): void {
  if (sink === undefined) return
  const pending = sink(event)
  if (pending !== undefined) pending.catch(() => {})
}
