/**
 * @module The process-wide admission gate for model requests made inside tools (R22, A8):
 * at most `width` requests run at once, the rest wait in FIFO order.
 *
 *   #waiters: [ done | done | w3 | w4 | aborted | w6 ]
 *                             ▲ #head               (compacted once the dead prefix is large)
 */
import assert from 'node:assert'
import { availableParallelism } from 'node:os'
import { ToolexecError } from '../contracts/errors.js'

export type ReleaseAdmission = () => void

/** Compact the queue only past this many consumed slots, so admission stays O(1) amortised. */
const COMPACT_AFTER = 1024

/** max(1, min(16, availableParallelism() − 2)) (A8). */
export function defaultAdmissionWidth(): number {
  return Math.max(1, Math.min(16, availableParallelism() - 2))
}

/** A queued request; it is its own abort listener, so waiting makes no closure. */
interface Waiter {
  readonly resolve: (release: ReleaseAdmission) => void
  readonly reject: (reason: unknown) => void
  readonly signal: AbortSignal | undefined
  readonly gate: AdmissionGate
  waiting: boolean
  handleEvent(this: Waiter): void
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new ToolexecError('EXEC_ERR_ADMISSION_ABORTED')
}

export class AdmissionGate {
  readonly #width: number
  #active = 0
  #queued = 0
  #waiters: (Waiter | null)[] = []
  #head = 0

  constructor(width: number = defaultAdmissionWidth()) {
    assert(Number.isInteger(width) && width >= 1, `admission gate width must be a positive integer, got ${width}`)
    this.#width = width
  }

  get width(): number {
    return this.#width
  }

  /** Requests holding an admission. */
  get active(): number {
    return this.#active
  }

  /** Requests waiting for one. */
  get queued(): number {
    return this.#queued
  }

  /**
   * Waits for a slot. Resolves with an idempotent release function; rejects with the signal's
   * reason when it aborts while waiting (the waiter leaves the queue).
   */
  acquire(signal?: AbortSignal): Promise<ReleaseAdmission> {
    if (signal?.aborted === true) return Promise.reject(abortReason(signal))
    if (this.#active < this.#width && this.#queued === 0) {
      this.#active += 1
      return Promise.resolve(this.#createRelease())
    }
    return new Promise<ReleaseAdmission>((resolve, reject) => this.#enqueue(resolve, reject, signal))
  }

  #enqueue(resolve: Waiter['resolve'], reject: Waiter['reject'], signal: AbortSignal | undefined): void {
    const waiter: Waiter = { resolve, reject, signal, gate: this, waiting: true, handleEvent: AdmissionGate.#onWaiterAborted }
    signal?.addEventListener('abort', waiter, { once: true })
    this.#waiters.push(waiter)
    this.#queued += 1
  }

  // An aborted waiter stays in the array as a dead slot that #admitNext skips: removal is O(1).
  static #onWaiterAborted(this: Waiter): void {
    if (!this.waiting || this.signal === undefined) return
    this.waiting = false
    this.gate.#queued -= 1
    this.gate.#compact()
    this.reject(abortReason(this.signal))
  }

  #createRelease(): ReleaseAdmission {
    let released = false
    const releaseAdmission = (): void => {
      if (released) return
      released = true
      this.#active -= 1
      this.#admitNext()
    }
    return releaseAdmission
  }

  #admitNext(): void {
    while (this.#active < this.#width && this.#queued > 0) {
      const waiter = this.#waiters[this.#head]
      this.#waiters[this.#head] = null
      this.#head += 1
      if (waiter === null || waiter === undefined || !waiter.waiting) continue
      waiter.waiting = false
      waiter.signal?.removeEventListener('abort', waiter)
      this.#queued -= 1
      this.#active += 1
      waiter.resolve(this.#createRelease())
    }
    this.#compact()
  }

  #compact(): void {
    if (this.#queued === 0) {
      this.#waiters = []
      this.#head = 0
    } else if (this.#head > COMPACT_AFTER && this.#head * 2 > this.#waiters.length) {
      this.#waiters = this.#waiters.slice(this.#head)
      this.#head = 0
    }
  }
}
