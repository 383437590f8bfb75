import { afterEach, describe, expect, it, vi } from 'vitest'
import { hasCode, ToolexecError } from '../../src/contracts/errors.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { DEFAULT_TIMEOUT_MS, executeWithTimeout, resolveTimeoutMs } from '../../src/executor/timeout.js'

type TimeoutFields = Pick<ToolEntry, 'timeout' | 'metadata' | 'resolveTimeoutBudgetMs'>

/** A promise the test settles by hand, standing in for a handler that is still running. */
function manual<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('resolveTimeoutMs', () => {
  const cases: [string, TimeoutFields, unknown, number | undefined][] = [
    ['kind none gives no timeout', { timeout: { kind: 'none', defaultMs: 10 } }, { timeout_ms: 5 }, undefined],
    ['resolveTimeoutBudgetMs wins over everything', { timeout: { kind: 'deadline', allowCallOverride: true, defaultMs: 9 }, resolveTimeoutBudgetMs: () => 1234 }, { timeout_ms: 5, timeout: 6 }, 1234],
    ['a non-finite budget falls through to the override', { timeout: { kind: 'deadline', allowCallOverride: true }, resolveTimeoutBudgetMs: () => Number.NaN }, { timeout_ms: 5 }, 5],
    ['the override uses timeout_ms first', { timeout: { kind: 'deadline', allowCallOverride: true, defaultMs: 9 } }, { timeout_ms: 5, timeout: 6 }, 5],
    ['the override falls back to timeout', { timeout: { kind: 'deadline', allowCallOverride: true, defaultMs: 9 } }, { timeout: 6 }, 6],
    ['an override not allowed ignores the input', { timeout: { kind: 'deadline', defaultMs: 9 } }, { timeout_ms: 5, timeout: 6 }, 9],
    ['a non-number timeout is ignored', { timeout: { kind: 'deadline', allowCallOverride: true, defaultMs: 9 } }, { timeout_ms: '5', timeout: null }, 9],
    ['a non-object input is ignored', { timeout: { kind: 'deadline', allowCallOverride: true, defaultMs: 9 } }, [5], 9],
    ['the policy defaultMs comes before metadata', { timeout: { kind: 'deadline', defaultMs: 9 }, metadata: { timeoutMs: 8 } }, {}, 9],
    ['metadata.timeoutMs comes next', { timeout: { kind: 'deadline' }, metadata: { timeoutMs: 8 } }, {}, 8],
    ['the executor default comes last', { timeout: { kind: 'deadline' } }, {}, 300_000],
    ['a missing policy behaves as an empty deadline policy', {}, { timeout_ms: 5 }, 300_000],
    ['the request is capped at maxMs', { timeout: { kind: 'deadline', allowCallOverride: true, maxMs: 1000 } }, { timeout_ms: 50_000 }, 1000],
    ['the grace is added after the cap', { timeout: { kind: 'deadline', allowCallOverride: true, maxMs: 1000, cleanupGraceMs: 6000 } }, { timeout_ms: 50_000 }, 7000],
    ['the grace is truncated', { timeout: { kind: 'deadline', defaultMs: 100, cleanupGraceMs: 2.9 } }, {}, 102],
    ['0.4 is truncated and raised to 1', { timeout: { kind: 'deadline', allowCallOverride: true } }, { timeout_ms: 0.4 }, 1],
    ['a negative request is raised to 1', { timeout: { kind: 'deadline', allowCallOverride: true } }, { timeout_ms: -50 }, 1],
    ['a fractional request is truncated', { timeout: { kind: 'deadline', allowCallOverride: true } }, { timeout_ms: 1500.9 }, 1500],
  ]
  it.each(cases)('R20 %s', (_name, entry, input, expected) => {
    expect(resolveTimeoutMs(entry, input, DEFAULT_TIMEOUT_MS)).toBe(expected)
  })

  it('R20 passes the input to resolveTimeoutBudgetMs', () => {
    const budget = vi.fn((input: unknown) => (input as { n: number }).n * 2)
    expect(resolveTimeoutMs({ resolveTimeoutBudgetMs: budget }, { n: 21 }, DEFAULT_TIMEOUT_MS)).toBe(42)
    expect(budget).toHaveBeenCalledWith({ n: 21 })
  })

  it('R21 leaves room for a tool that enforces its own timeout: 6 s of grace after its budget', () => {
    const bash: TimeoutFields = { timeout: { kind: 'deadline', allowCallOverride: true, defaultMs: 120_000, maxMs: 600_000, cleanupGraceMs: 6000 } }
    expect(resolveTimeoutMs(bash, { command: 'sleep 1', timeout: 10_000 }, DEFAULT_TIMEOUT_MS)).toBe(16_000)
  })
})

describe('executeWithTimeout with fake timers', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('R23 returns aborted at once without calling run when the turn is already aborted', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    controller.abort('turn over')
    const run = vi.fn(() => Promise.resolve('never'))
    const outcome = await executeWithTimeout(run, { timeoutMs: 1000, parentSignal: controller.signal })
    expect(outcome).toEqual({ kind: 'aborted', reason: 'turn over' })
    expect(run).not.toHaveBeenCalled()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('R23 settles aborted at once when the turn aborts mid-run while the handler keeps running', async () => {
    vi.useFakeTimers()
    const turn = new AbortController()
    const handler = manual<string>()
    let handlerSignal: AbortSignal | undefined
    const result = executeWithTimeout(
      ({ signal }) => {
        handlerSignal = signal
        return handler.promise
      },
      { timeoutMs: 10_000, parentSignal: turn.signal },
    )
    await vi.advanceTimersByTimeAsync(100)
    turn.abort('user pressed stop')
    const outcome = await result
    expect(outcome).toEqual({ kind: 'aborted', reason: 'user pressed stop' })
    expect(handlerSignal?.aborted).toBe(true)
    expect(handlerSignal?.reason).toBe('user pressed stop')
    expect(vi.getTimerCount()).toBe(0)
    // The handler finishes later; nothing happens and nothing is unhandled.
    handler.reject(new Error('late failure'))
    await vi.advanceTimersByTimeAsync(10)
  })

  it('R23 aborts the handler signal with the timeout error and settles at once on timeout', async () => {
    vi.useFakeTimers()
    let handlerSignal: AbortSignal | undefined
    const handler = manual<string>()
    const result = executeWithTimeout(
      ({ signal }) => {
        handlerSignal = signal
        return handler.promise
      },
      { timeoutMs: 1000 },
    )
    await vi.advanceTimersByTimeAsync(1000)
    const outcome = await result
    expect(outcome.kind).toBe('timeout')
    if (outcome.kind !== 'timeout') return
    expect(outcome.error.message).toBe('Tool execution timed out after 1000ms')
    expect(hasCode(outcome.error, 'EXEC_ERR_TIMEOUT')).toBe(true)
    expect(outcome.timeoutMs).toBe(1000)
    expect(outcome.queuedMs).toBe(0)
    expect(outcome.error.context).toEqual({ timeoutMs: 1000, queuedMs: 0 })
    expect(handlerSignal?.aborted).toBe(true)
    expect(handlerSignal?.reason).toBe(outcome.error)
    expect(vi.getTimerCount()).toBe(0)
    handler.reject(handlerSignal?.reason)
    await vi.advanceTimersByTimeAsync(10)
  })

  it('R22 a timeout reports the time its deadline spent paused as queuedMs', async () => {
    vi.useFakeTimers()
    const result = executeWithTimeout(
      (_call, deadline) => {
        setTimeout(() => deadline?.pause(), 200)
        setTimeout(() => deadline?.resume(), 3200)
        return new Promise<never>(() => undefined)
      },
      { timeoutMs: 1000 },
    )
    await vi.advanceTimersByTimeAsync(3999)
    let settled = false
    void result.then(() => (settled = true))
    await vi.advanceTimersByTimeAsync(0)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const outcome = await result
    expect(outcome).toMatchObject({ kind: 'timeout', timeoutMs: 1000, queuedMs: 3000 })
    if (outcome.kind === 'timeout') expect(outcome.error.context).toEqual({ timeoutMs: 1000, queuedMs: 3000 })
  })

  it.each([
    ['ok', (): Promise<string> => Promise.resolve('done'), { kind: 'ok', value: 'done' }],
    ['error', (): Promise<string> => Promise.reject(new Error('boom')), { kind: 'error', error: new Error('boom') }],
    [
      'a synchronous throw',
      (): Promise<string> => {
        throw new Error('sync boom')
      },
      { kind: 'error', error: new Error('sync boom') },
    ],
  ])('R23 settles %s and leaves no timer and no listener behind', async (_name, run, expected) => {
    vi.useFakeTimers()
    const turn = new AbortController()
    const outcome = await executeWithTimeout(run, { timeoutMs: 5000, parentSignal: turn.signal })
    expect(outcome).toEqual(expected)
    expect(vi.getTimerCount()).toBe(0)
    // A later turn abort must not reach a call that is over.
    turn.abort()
  })

  it('R20 creates no timer at all when there is no time limit', async () => {
    vi.useFakeTimers()
    const handler = manual<number>()
    let seenDeadline: unknown = 'unset'
    const result = executeWithTimeout(
      (_call, deadline) => {
        seenDeadline = deadline
        return handler.promise
      },
      { timeoutMs: undefined },
    )
    expect(vi.getTimerCount()).toBe(0)
    expect(seenDeadline).toBeUndefined()
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS * 10)
    handler.resolve(7)
    expect(await result).toEqual({ kind: 'ok', value: 7 })
  })

  it('R23 removes its abort listener from the turn signal on settlement', async () => {
    const turn = new AbortController()
    const added = vi.spyOn(turn.signal, 'addEventListener')
    const removed = vi.spyOn(turn.signal, 'removeEventListener')
    await executeWithTimeout(() => Promise.resolve(1), { timeoutMs: 100, parentSignal: turn.signal })
    expect(added).toHaveBeenCalledTimes(1)
    expect(removed).toHaveBeenCalledWith('abort', added.mock.calls[0]?.[1])
  })
})

describe('executeWithTimeout with real timers', () => {
  it('R23 times out a 2 s handler after 50 ms without waiting for it', async () => {
    let handlerSignal: AbortSignal | undefined
    const started = performance.now()
    const outcome = await executeWithTimeout(
      ({ signal }) =>
        new Promise<string>((resolve, reject) => {
          handlerSignal = signal
          const timer = setTimeout(resolve, 2000, 'too late')
          signal.addEventListener('abort', () => {
            clearTimeout(timer)
            reject(signal.reason as Error)
          })
        }),
      { timeoutMs: 50 },
    )
    const elapsed = performance.now() - started
    expect(elapsed).toBeLessThan(1000)
    expect(elapsed).toBeGreaterThanOrEqual(45)
    expect(outcome.kind).toBe('timeout')
    if (outcome.kind !== 'timeout') return
    expect(outcome.error).toBeInstanceOf(ToolexecError)
    expect(outcome.error.message).toBe('Tool execution timed out after 50ms')
    expect(handlerSignal?.reason).toBe(outcome.error)
  })
})
