/**
 * @module The pausable deadline of one tool call (R22, A8). While a model request made by the
 * tool waits at the admission gate, the clock stops: the timeout guards against a dead
 * provider, not against our own queue.
 *
 *   start ──run──▶ pause ─(queued)─▶ resume ──run──▶ expire
 *   remaining = timeoutMs − Σ(run segments);  queuedMs = Σ(paused segments)
 */
import type { ExecutorEvent } from '../contracts/events.js'

/** setTimeout fires at once above 2^31−1 ms; longer deadlines re-arm in steps of this size. */
const MAX_TIMER_DELAY_MS = 2_147_483_647

type DeadlineState = 'idle' | 'running' | 'paused' | 'expired' | 'disposed'

// The global performance is read per call (not imported) so that fake timers can drive it.
function now(): number {
  return performance.now()
}

export class ToolDeadline {
  readonly timeoutMs: number
  readonly #onExpire: () => void
  #state: DeadlineState = 'idle'
  #remainingMs: number
  #segmentStartedAt = 0
  #armedDelayMs = 0
  #timer: ReturnType<typeof setTimeout> | null = null
  #pauseDepth = 0
  #pausedAt = 0
  #queuedMs = 0

  constructor(timeoutMs: number, onExpire: () => void) {
    this.timeoutMs = timeoutMs
    this.#remainingMs = timeoutMs
    this.#onExpire = onExpire
  }

  /** Starts the clock; a deadline paused before it starts begins counting at the outermost resume. */
  start(): void {
    if (this.#state !== 'idle') return
    if (this.#pauseDepth > 0) {
      this.#state = 'paused'
      return
    }
    this.#run()
  }

  /** Nests: only the first of several overlapping pauses stops the clock. */
  pause(): void {
    if (this.#isOver()) return
    this.#pauseDepth += 1
    if (this.#pauseDepth > 1) return
    this.#pausedAt = now()
    if (this.#state !== 'running') return
    this.#consumeSegment()
    this.#clearTimer()
    this.#state = 'paused'
  }

  /** Only the outermost resume restarts the clock; an unmatched resume is ignored. */
  resume(): void {
    if (this.#isOver() || this.#pauseDepth === 0) return
    this.#pauseDepth -= 1
    if (this.#pauseDepth > 0) return
    this.#queuedMs += now() - this.#pausedAt
    if (this.#state === 'paused') this.#run()
  }

  /** Clears the timer; the deadline never fires afterwards. */
  dispose(): void {
    if (this.#state === 'running' || this.#state === 'paused') this.#freezeQueued()
    this.#clearTimer()
    if (this.#state !== 'expired') this.#state = 'disposed'
  }

  get paused(): boolean {
    return this.#pauseDepth > 0
  }

  get expired(): boolean {
    return this.#state === 'expired'
  }

  /** Time left on the clock; frozen while paused. */
  get remainingMs(): number {
    if (this.#state !== 'running') return Math.max(0, this.#remainingMs)
    return Math.max(0, this.#remainingMs - (now() - this.#segmentStartedAt))
  }

  /** Total time spent paused, including a pause still in progress. */
  get queuedMs(): number {
    const open = this.#pauseDepth > 0 && !this.#isOver() ? now() - this.#pausedAt : 0
    return this.#queuedMs + open
  }

  #isOver(): boolean {
    return this.#state === 'expired' || this.#state === 'disposed'
  }

  #run(): void {
    this.#state = 'running'
    this.#segmentStartedAt = now()
    this.#armedDelayMs = Math.min(Math.max(0, this.#remainingMs), MAX_TIMER_DELAY_MS)
    this.#timer = setTimeout(ToolDeadline.#onTimer, this.#armedDelayMs, this)
  }

  #consumeSegment(): void {
    this.#remainingMs -= now() - this.#segmentStartedAt
  }

  #freezeQueued(): void {
    if (this.#pauseDepth > 0) this.#queuedMs += now() - this.#pausedAt
    this.#pauseDepth = 0
  }

  #clearTimer(): void {
    if (this.#timer === null) return
    clearTimeout(this.#timer)
    this.#timer = null
  }

  // Module-level style callback: one function for all deadlines, state passed as the argument.
  static #onTimer(deadline: ToolDeadline): void {
    deadline.#timer = null
    const clamped = deadline.#armedDelayMs < deadline.#remainingMs
    deadline.#consumeSegment()
    if (clamped && deadline.#remainingMs > 0) {
      deadline.#run()
      return
    }
    deadline.#remainingMs = 0
    deadline.#state = 'expired'
    deadline.#onExpire()
  }
}

/**
 * Drives a call's deadline from its own ModelNetworkStatus events (A8): queued pauses,
 * admitted resumes. A request that fails while still queued (its event carries queuedMs and
 * was never admitted) also resumes, so an abandoned wait cannot leave the clock stopped.
 * Events of other calls and every other event are ignored.
 */
export function observeAdmissionClock(event: ExecutorEvent, callId: string, deadline: ToolDeadline | undefined): void {
  if (deadline === undefined || event.type !== 'ModelNetworkStatus' || event.callId !== callId) return
  switch (event.status) {
    case 'model_request_queued':
      deadline.pause()
      return
    case 'model_request_admitted':
      deadline.resume()
      return
    case 'model_request_failed':
      if (event.queuedMs !== undefined) deadline.resume()
      return
    default:
      return
  }
}
