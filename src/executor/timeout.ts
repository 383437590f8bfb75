/**
 * @module A call's time limit (R20) and the race between the handler, its deadline and the
 * turn's abort signal (R23). The executor never waits for a handler that lost the race:
 * cleanup is the handler's job, through the signal it was given.
 */
import { ToolexecError } from '../contracts/errors.js'
import type { TimeoutPolicy, ToolEntry } from '../contracts/tool-entry.js'
import { ToolDeadline } from './deadline.js'

export const DEFAULT_TIMEOUT_MS = 300_000

const NO_POLICY: TimeoutPolicy = { kind: 'deadline' }

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function callOverrideMs(input: unknown): number | undefined {
  if (!isPlainObject(input)) return undefined
  return finiteNumber(input.timeout_ms) ?? finiteNumber(input.timeout)
}

/**
 * Resolves the time limit of one call (R20), grace included; undefined means no limit.
 *
 * @param entry the tool: its timeout policy, metadata and optional budget function
 * @param input the call's (validated) input
 * @param defaultTimeoutMs the executor's default, normally {@link DEFAULT_TIMEOUT_MS}
 * @example resolveTimeoutMs({ timeout: { kind: 'deadline', maxMs: 600_000, cleanupGraceMs: 6_000 } }, {}, 300_000) // 306000
 */
export function resolveTimeoutMs(entry: Pick<ToolEntry, 'timeout' | 'metadata' | 'resolveTimeoutBudgetMs'>, input: unknown, defaultTimeoutMs: number): number | undefined {
  const policy = entry.timeout ?? NO_POLICY
  if (policy.kind === 'none') return undefined
  const requested =
    finiteNumber(entry.resolveTimeoutBudgetMs?.(input)) ?? (policy.allowCallOverride === true ? callOverrideMs(input) : undefined) ?? policy.defaultMs ?? entry.metadata?.timeoutMs ?? defaultTimeoutMs
  const capped = policy.maxMs === undefined ? requested : Math.min(requested, policy.maxMs)
  return Math.max(1, Math.trunc(capped)) + Math.max(0, Math.trunc(policy.cleanupGraceMs ?? 0))
}

export type TimedOutcome<T> =
  | { readonly kind: 'ok'; readonly value: T }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'timeout'; readonly timeoutMs: number; readonly queuedMs: number; readonly error: ToolexecError }
  | { readonly kind: 'aborted'; readonly reason: unknown }

export interface TimedRunOptions {
  readonly timeoutMs: number | undefined
  readonly parentSignal?: AbortSignal | undefined
}

/** Gives the call's signal on first use. */
export interface AbortHandle {
  readonly signal: AbortSignal
}

export type TimedRun<T> = (handle: AbortHandle, deadline: ToolDeadline | undefined) => Promise<T>

/** One race. Used as the parent signal's listener object, so no closure is made for it. */
class TimedCall<T> implements AbortHandle {
  // Created on first use: an AbortController costs microseconds and most handlers never look.
  #controller: AbortController | undefined = undefined
  #abortReason: { readonly reason: unknown } | undefined = undefined
  readonly #parent: AbortSignal | undefined
  readonly #resolve: (outcome: TimedOutcome<T>) => void
  #deadline: ToolDeadline | undefined = undefined
  #settled = false

  constructor(parent: AbortSignal | undefined, resolve: (outcome: TimedOutcome<T>) => void) {
    this.#parent = parent
    this.#resolve = resolve
  }

  begin(run: TimedRun<T>, timeoutMs: number | undefined): void {
    this.#parent?.addEventListener('abort', this, { once: true })
    // No limit, no timer: an unlimited call pays for no deadline object at all.
    if (timeoutMs !== undefined) {
      this.#deadline = new ToolDeadline(timeoutMs, () => this.#onExpire(timeoutMs))
      this.#deadline.start()
    }
    let pending: Promise<T>
    try {
      pending = run(this, this.#deadline)
    } catch (error) {
      this.#settle({ kind: 'error', error })
      return
    }
    // Both branches are attached, so a rejection after settlement is never unhandled.
    pending.then(
      (value) => this.#settle({ kind: 'ok', value }),
      (error: unknown) => this.#settle({ kind: 'error', error }),
    )
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      // A handler that looks only after the race ended still sees why it ended.
      if (this.#abortReason !== undefined) this.#controller.abort(this.#abortReason.reason)
    }
    return this.#controller.signal
  }

  /** The parent signal aborted while the handler was running. */
  handleEvent(): void {
    if (this.#settled) return
    const reason: unknown = this.#parent?.reason
    this.#settle({ kind: 'aborted', reason })
    this.#abort(reason)
  }

  #onExpire(timeoutMs: number): void {
    if (this.#settled) return
    const queuedMs = this.#deadline?.queuedMs ?? 0
    const error = new ToolexecError('EXEC_ERR_TIMEOUT', [timeoutMs], { context: { timeoutMs, queuedMs } })
    this.#settle({ kind: 'timeout', timeoutMs, queuedMs, error })
    this.#abort(error)
  }

  #abort(reason: unknown): void {
    this.#abortReason = { reason }
    this.#controller?.abort(reason)
  }

  // Settles first, then aborts: a handler reacting synchronously to its signal finds the race over.
  #settle(outcome: TimedOutcome<T>): void {
    if (this.#settled) return
    this.#settled = true
    this.#parent?.removeEventListener('abort', this)
    this.#deadline?.dispose()
    this.#resolve(outcome)
  }
}

/**
 * Runs one handler against its deadline and the turn's abort signal (R23) and settles with
 * the first of: its value, its error, the timeout, the abort. Every timer and listener is
 * removed on every exit path.
 *
 * @example const outcome = await executeWithTimeout((call) => tool.handler(input, { ...ctx, signal: call.signal }), { timeoutMs: 1000, parentSignal: turn.signal })
 */
export function executeWithTimeout<T>(run: TimedRun<T>, options: TimedRunOptions): Promise<TimedOutcome<T>> {
  const parent = options.parentSignal
  if (parent?.aborted === true) return Promise.resolve<TimedOutcome<T>>({ kind: 'aborted', reason: parent.reason })
  return new Promise<TimedOutcome<T>>((resolve) => {
    new TimedCall<T>(parent, resolve).begin(run, options.timeoutMs)
  })
}
