/**
 * @module Bounds on schedules accepted but not started yet, per session and in all. A client
 * posting schedules faster than they run would otherwise grow a backlog without end (memory,
 * and minutes of work queued behind it); over a bound the schedule is refused before anything
 * of it is stored, and the client retries once the backlog has shrunk.
 */
import { ToolexecError } from '../contracts/errors.js'

export interface BacklogBounds {
  /** Unstarted schedules one session may have queued. */
  readonly perSession: number
  /** Unstarted schedules of every session together. */
  readonly total: number
}

/** What a refused client is told to wait: schedules start as fast as the ones before them end, so soon. */
export const BACKLOG_RETRY_AFTER_SECONDS = 1

export const DEFAULT_BACKLOG_BOUNDS: BacklogBounds = { perSession: 100, total: 5_000 }

/** Gives back one place in the backlog; calling it again does nothing. */
export type BacklogRelease = () => void

export class ScheduleBacklog {
  readonly #bounds: BacklogBounds
  readonly #perSession = new Map<string, number>()
  #total = 0

  constructor(bounds: BacklogBounds = DEFAULT_BACKLOG_BOUNDS) {
    this.#bounds = bounds
  }

  /** Takes a place for a new schedule of the session, or throws API_ERR_TOO_MANY_SCHEDULES. */
  admit(sessionId: string): BacklogRelease {
    const queued = this.#perSession.get(sessionId) ?? 0
    if (queued >= this.#bounds.perSession) {
      const why = `session ${sessionId} already has ${queued} waiting, its bound (TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION=${this.#bounds.perSession})`
      throw tooMany(why, { sessionId, queued, bound: this.#bounds.perSession, scope: 'session' })
    }
    if (this.#total >= this.#bounds.total) {
      const why = `the server already has ${this.#total} waiting from all sessions, its bound (TOOLEXEC_MAX_QUEUED_SCHEDULES=${this.#bounds.total}); refused for session ${sessionId}`
      throw tooMany(why, { sessionId, queued: this.#total, bound: this.#bounds.total, scope: 'server' })
    }
    return this.take(sessionId)
  }

  /** Takes a place whatever the bounds (a schedule recovered at start was accepted before). */
  take(sessionId: string): BacklogRelease {
    this.#perSession.set(sessionId, (this.#perSession.get(sessionId) ?? 0) + 1)
    this.#total++
    let released = false
    return () => {
      if (released) return
      released = true
      this.#total--
      const left = (this.#perSession.get(sessionId) ?? 1) - 1
      if (left === 0) this.#perSession.delete(sessionId)
      else this.#perSession.set(sessionId, left)
    }
  }

  queued(sessionId?: string): number {
    return sessionId === undefined ? this.#total : (this.#perSession.get(sessionId) ?? 0)
  }
}

function tooMany(why: string, context: Record<string, unknown>): ToolexecError {
  return new ToolexecError('API_ERR_TOO_MANY_SCHEDULES', [why, BACKLOG_RETRY_AFTER_SECONDS], { context: { ...context, retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS } })
}
