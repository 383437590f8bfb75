import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import type { ModelClient, ModelRequest, ModelResponse } from '../../src/contracts/ports.js'
import { AdmissionGate } from '../../src/executor/admission-gate.js'
import { ToolDeadline, observeAdmissionClock } from '../../src/executor/deadline.js'
import { wrapModelForCall } from '../../src/executor/model-status.js'
import { executeWithTimeout } from '../../src/executor/timeout.js'

/** An in-process model that answers after `latencyMs` (or never) and honours its signal. */
class DelayedModel implements ModelClient {
  readonly requests: ModelRequest[] = []
  constructor(
    readonly latencyMs: number | 'never',
    readonly failWith?: Error,
  ) {}

  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    this.requests.push(request)
    return new Promise((resolve, reject) => {
      const timer = this.latencyMs === 'never' ? undefined : setTimeout(() => this.#answer(resolve, reject), this.latencyMs)
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          reject(signal.reason as Error)
        },
        { once: true },
      )
    })
  }

  #answer(resolve: (r: ModelResponse) => void, reject: (e: unknown) => void): void {
    if (this.failWith !== undefined) reject(this.failWith)
    else resolve({ text: `answer to ${this.requests.length}` })
  }
}

const REQUEST: ModelRequest = { messages: [{ role: 'user', content: 'summarise' }] }

function statuses(events: ExecutorEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'ModelNetworkStatus' ? [`${e.callId}:${e.status}`] : []))
}

describe('wrapModelForCall', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('R22 reports queued, admitted with queuedMs and completed around a request', async () => {
    const events: ExecutorEvent[] = []
    const gate = new AdmissionGate(1)
    const model = wrapModelForCall(new DelayedModel(5), gate, { sessionId: 's1', callId: 'c1', emit: (e) => void events.push(e) })
    const response = await model.complete(REQUEST, new AbortController().signal)
    expect(response).toEqual({ text: 'answer to 1' })
    expect(statuses(events)).toEqual(['c1:model_request_queued', 'c1:model_request_admitted', 'c1:model_request_completed'])
    const admitted = events[1]
    expect(admitted?.type === 'ModelNetworkStatus' && typeof admitted.queuedMs).toBe('number')
    expect(events.every((e) => e.sessionId === 's1')).toBe(true)
    expect(gate.active).toBe(0)
  })

  it('R22 reports failed and releases the gate when the model fails', async () => {
    const events: ExecutorEvent[] = []
    const gate = new AdmissionGate(1)
    const boom = new Error('provider down')
    const model = wrapModelForCall(new DelayedModel(1, boom), gate, { sessionId: 's1', callId: 'c1', emit: (e) => void events.push(e) })
    await expect(model.complete(REQUEST, new AbortController().signal)).rejects.toBe(boom)
    expect(statuses(events)).toEqual(['c1:model_request_queued', 'c1:model_request_admitted', 'c1:model_request_failed'])
    const failed = events[2]
    expect(failed?.type === 'ModelNetworkStatus' && failed.queuedMs).toBeUndefined()
    expect(gate.active).toBe(0)
  })

  it('R22 awaits an asynchronous sink before going on', async () => {
    const order: string[] = []
    const gate = new AdmissionGate(1)
    const emit = async (e: ExecutorEvent): Promise<void> => {
      await new Promise((r) => setTimeout(r, 1))
      if (e.type === 'ModelNetworkStatus') order.push(e.status)
    }
    const model: ModelClient = {
      complete: () => {
        order.push('model')
        return Promise.resolve({ text: 'x' })
      },
    }
    await wrapModelForCall(model, gate, { sessionId: 's1', callId: 'c1', emit }).complete(REQUEST, new AbortController().signal)
    expect(order).toEqual(['model_request_queued', 'model_request_admitted', 'model', 'model_request_completed'])
  })

  it('R22 a request aborted while queued reports failed with queuedMs and resumes its deadline', async () => {
    vi.useFakeTimers()
    const gate = new AdmissionGate(1)
    const holder = await gate.acquire()
    const events: ExecutorEvent[] = []
    const deadline = new ToolDeadline(1000, () => undefined)
    deadline.start()
    const emit = (e: ExecutorEvent): void => {
      events.push(e)
      observeAdmissionClock(e, 'c1', deadline)
    }
    const controller = new AbortController()
    const inner = new DelayedModel(1)
    const pending = wrapModelForCall(inner, gate, { sessionId: 's1', callId: 'c1', emit }).complete(REQUEST, controller.signal)
    await vi.advanceTimersByTimeAsync(500)
    expect(deadline.paused).toBe(true)
    controller.abort(new Error('gave up'))
    await expect(pending).rejects.toThrow('gave up')
    expect(statuses(events)).toEqual(['c1:model_request_queued', 'c1:model_request_failed'])
    expect(deadline.paused).toBe(false)
    expect(deadline.queuedMs).toBe(500)
    expect(inner.requests).toHaveLength(0)
    expect(gate.queued).toBe(0)
    holder()
    deadline.dispose()
  })

  it('R22 a 1 s budget whose call waits 3 s at the gate still completes with its remaining time conserved', async () => {
    vi.useFakeTimers()
    const gate = new AdmissionGate(1)
    const other = await gate.acquire()
    setTimeout(other, 3000)
    const events: ExecutorEvent[] = []
    const remainingAtAdmission: number[] = []
    const outcome = executeWithTimeout(
      async ({ signal }, deadline) => {
        const emit = (e: ExecutorEvent): void => {
          events.push(e)
          observeAdmissionClock(e, 'c1', deadline)
          if (e.type === 'ModelNetworkStatus' && e.status === 'model_request_admitted') remainingAtAdmission.push(deadline?.remainingMs ?? -1)
        }
        await new Promise((r) => setTimeout(r, 200))
        const model = wrapModelForCall(new DelayedModel(500), gate, { sessionId: 's1', callId: 'c1', emit })
        const response = await model.complete(REQUEST, signal)
        return { text: response.text, queuedMs: deadline?.queuedMs }
      },
      { timeoutMs: 1000 },
    )
    await vi.advanceTimersByTimeAsync(3700)
    expect(await outcome).toEqual({ kind: 'ok', value: { text: 'answer to 1', queuedMs: 2800 } })
    expect(remainingAtAdmission).toEqual([800])
    const admitted = events.find((e) => e.type === 'ModelNetworkStatus' && e.status === 'model_request_admitted')
    expect(admitted).toMatchObject({ queuedMs: 2800 })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('R22 a dead provider still times out after the admitted budget and reports queuedMs', async () => {
    vi.useFakeTimers()
    const gate = new AdmissionGate(1)
    const other = await gate.acquire()
    setTimeout(other, 3000)
    const events: ExecutorEvent[] = []
    const outcome = executeWithTimeout(
      async ({ signal }, deadline) => {
        const emit = (e: ExecutorEvent): void => {
          events.push(e)
          observeAdmissionClock(e, 'c1', deadline)
        }
        const model = wrapModelForCall(new DelayedModel('never'), gate, { sessionId: 's1', callId: 'c1', emit })
        return model.complete(REQUEST, signal)
      },
      { timeoutMs: 1000 },
    )
    let settled = false
    void outcome.then(() => (settled = true))
    await vi.advanceTimersByTimeAsync(3999)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const result = await outcome
    expect(result).toMatchObject({ kind: 'timeout', timeoutMs: 1000, queuedMs: 3000 })
    if (result.kind !== 'timeout') return
    expect(result.error.message).toBe('Tool execution timed out after 1000ms')
    expect(result.error.context).toEqual({ timeoutMs: 1000, queuedMs: 3000 })
    // The model saw the abort, failed, and gave its slot back.
    await vi.advanceTimersByTimeAsync(0)
    expect(statuses(events)).toEqual(['c1:model_request_queued', 'c1:model_request_admitted', 'c1:model_request_failed'])
    expect(gate.active).toBe(0)
  })

  it('R22 two calls sharing the gate each pause only their own deadline', async () => {
    vi.useFakeTimers()
    const gate = new AdmissionGate(1)
    const deadlines = { a: new ToolDeadline(1000, () => undefined), b: new ToolDeadline(1000, () => undefined) }
    deadlines.a.start()
    deadlines.b.start()
    // One shared event stream, as the executor has: each deadline must pick out its own call.
    const emit = (e: ExecutorEvent): void => {
      observeAdmissionClock(e, 'a', deadlines.a)
      observeAdmissionClock(e, 'b', deadlines.b)
    }
    const a = wrapModelForCall(new DelayedModel(400), gate, { sessionId: 's1', callId: 'a', emit })
    const b = wrapModelForCall(new DelayedModel(400), gate, { sessionId: 's1', callId: 'b', emit })
    const signal = new AbortController().signal
    const both = Promise.all([a.complete(REQUEST, signal), b.complete(REQUEST, signal)])
    await vi.advanceTimersByTimeAsync(100)
    expect(deadlines.a.paused).toBe(false)
    expect(deadlines.b.paused).toBe(true)
    await vi.advanceTimersByTimeAsync(800)
    await both
    expect(deadlines.a.queuedMs).toBe(0)
    expect(deadlines.b.queuedMs).toBe(400)
    deadlines.a.dispose()
    deadlines.b.dispose()
  })
})
