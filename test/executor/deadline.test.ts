import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import { ToolDeadline, observeAdmissionClock } from '../../src/executor/deadline.js'

function status(callId: string, s: 'model_request_queued' | 'model_request_admitted' | 'model_request_completed' | 'model_request_failed', queuedMs?: number): ExecutorEvent {
  const event: ExecutorEvent = { type: 'ModelNetworkStatus', sessionId: 's1', callId, status: s }
  if (queuedMs !== undefined) event.queuedMs = queuedMs
  return event
}

describe('ToolDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('R22 expires after timeoutMs of running time and calls onExpire once', () => {
    const onExpire = vi.fn()
    const deadline = new ToolDeadline(1000, onExpire)
    deadline.start()
    vi.advanceTimersByTime(999)
    expect(onExpire).not.toHaveBeenCalled()
    expect(deadline.remainingMs).toBe(1)
    vi.advanceTimersByTime(1)
    expect(onExpire).toHaveBeenCalledTimes(1)
    expect(deadline.expired).toBe(true)
    expect(deadline.remainingMs).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('R22 conserves the remaining time across a pause and counts the paused time in queuedMs', () => {
    const onExpire = vi.fn()
    const deadline = new ToolDeadline(1000, onExpire)
    deadline.start()
    vi.advanceTimersByTime(300)
    deadline.pause()
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(5000)
    expect(onExpire).not.toHaveBeenCalled()
    expect(deadline.remainingMs).toBe(700)
    expect(deadline.queuedMs).toBe(5000)
    deadline.resume()
    vi.advanceTimersByTime(699)
    expect(onExpire).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(onExpire).toHaveBeenCalledTimes(1)
    expect(deadline.queuedMs).toBe(5000)
  })

  it('A8 nests pauses with a counter: only the outermost resume restarts the clock', () => {
    const onExpire = vi.fn()
    const deadline = new ToolDeadline(1000, onExpire)
    deadline.start()
    vi.advanceTimersByTime(100)
    deadline.pause()
    vi.advanceTimersByTime(100)
    deadline.pause()
    vi.advanceTimersByTime(100)
    deadline.resume()
    expect(deadline.paused).toBe(true)
    vi.advanceTimersByTime(2000)
    expect(onExpire).not.toHaveBeenCalled()
    expect(deadline.remainingMs).toBe(900)
    deadline.resume()
    expect(deadline.paused).toBe(false)
    expect(deadline.queuedMs).toBe(2200)
    vi.advanceTimersByTime(900)
    expect(onExpire).toHaveBeenCalledTimes(1)
  })

  it('A8 ignores a resume with no matching pause', () => {
    const onExpire = vi.fn()
    const deadline = new ToolDeadline(500, onExpire)
    deadline.start()
    deadline.resume()
    deadline.pause()
    vi.advanceTimersByTime(1000)
    expect(onExpire).not.toHaveBeenCalled()
    deadline.resume()
    vi.advanceTimersByTime(500)
    expect(onExpire).toHaveBeenCalledTimes(1)
  })

  it('R22 dispose clears the timer so the deadline never fires', () => {
    const onExpire = vi.fn()
    const deadline = new ToolDeadline(1000, onExpire)
    deadline.start()
    expect(vi.getTimerCount()).toBe(1)
    deadline.dispose()
    expect(vi.getTimerCount()).toBe(0)
    deadline.resume()
    vi.advanceTimersByTime(5000)
    expect(onExpire).not.toHaveBeenCalled()
  })

  it('R22 re-arms a deadline longer than the largest timer delay instead of firing early', () => {
    const onExpire = vi.fn()
    const days30 = 30 * 24 * 3600 * 1000
    const deadline = new ToolDeadline(days30, onExpire)
    deadline.start()
    vi.advanceTimersByTime(days30 - 1)
    expect(onExpire).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(onExpire).toHaveBeenCalledTimes(1)
  })
})

describe('observeAdmissionClock', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it("A8 pauses on its own call's queued event and resumes on admitted", () => {
    const deadline = new ToolDeadline(1000, () => undefined)
    deadline.start()
    observeAdmissionClock(status('c1', 'model_request_queued'), 'c1', deadline)
    expect(deadline.paused).toBe(true)
    vi.advanceTimersByTime(400)
    observeAdmissionClock(status('c1', 'model_request_admitted', 400), 'c1', deadline)
    expect(deadline.paused).toBe(false)
    expect(deadline.queuedMs).toBe(400)
    deadline.dispose()
  })

  it.each([
    ["another call's queued event", status('c2', 'model_request_queued')],
    ['a completed event', status('c1', 'model_request_completed')],
    ['a failed event after admission', status('c1', 'model_request_failed')],
    ['a non-model event', { type: 'ToolCallProgress', sessionId: 's1', callId: 'c1', toolName: 't', progress: {} } satisfies ExecutorEvent],
  ])('A8 ignores %s', (_name, event) => {
    const deadline = new ToolDeadline(1000, () => undefined)
    deadline.start()
    observeAdmissionClock(event, 'c1', deadline)
    expect(deadline.paused).toBe(false)
    deadline.dispose()
  })

  it("A8 ignores another call's admitted event while its own request is queued", () => {
    const deadline = new ToolDeadline(1000, () => undefined)
    deadline.start()
    observeAdmissionClock(status('c1', 'model_request_queued'), 'c1', deadline)
    observeAdmissionClock(status('c2', 'model_request_admitted', 10), 'c1', deadline)
    expect(deadline.paused).toBe(true)
    deadline.dispose()
  })

  it('A8 resumes when a request fails while still queued (the failure carries queuedMs)', () => {
    const deadline = new ToolDeadline(1000, () => undefined)
    deadline.start()
    observeAdmissionClock(status('c1', 'model_request_queued'), 'c1', deadline)
    observeAdmissionClock(status('c1', 'model_request_failed', 50), 'c1', deadline)
    expect(deadline.paused).toBe(false)
    deadline.dispose()
  })

  it('A8 does nothing without a deadline', () => {
    expect(() => observeAdmissionClock(status('c1', 'model_request_queued'), 'c1', undefined)).not.toThrow()
  })
})
