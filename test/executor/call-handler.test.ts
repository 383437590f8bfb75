import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ToolCallContext } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { AdmissionGate } from '../../src/executor/admission-gate.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { deferred, delayedModel, eventsOfType, makeTool, sleep, type ToolExtras } from '../support/schedule-tools.js'
import { collectEvents } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

const FAKE: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] }
const WORKSPACE_TOOL = { readOnly: false, concurrentSafe: false, permission: { sideEffectScope: 'workspace' } } as const

/** A tool that needs approval and works for `input.ms` after it, within `timeoutMs`. */
function approvedWorker(timeoutMs: number, seen: { signal?: AbortSignal } = {}): ToolEntry {
  return makeTool(
    'Work',
    async (input, ctx) => {
      seen.signal = ctx.signal
      await sleep(Number(input.ms))
      return 'worked'
    },
    { ...WORKSPACE_TOOL, timeout: { kind: 'deadline', defaultMs: timeoutMs } },
  )
}

/** A tool that asks the model once, within a 1 s (or given) timeout. */
function modelUser(timeoutMs = 1000): ToolEntry {
  return makeTool(
    'Ask',
    async (_input, ctx) => {
      const model = ctx.model
      if (model === undefined) throw new Error('no model')
      const response = await model.complete({ messages: [{ role: 'user', content: 'hi' }] }, ctx.signal)
      return response.text
    },
    { timeout: { kind: 'deadline', defaultMs: timeoutMs } },
  )
}

/**
 * A handler that listens to its signal from the start, as a real one does, but does not stop
 * for it: it only ends when the test says so.
 */
function stubbornTool(extra: ToolExtras = {}) {
  const started = deferred<ToolCallContext>()
  const release = deferred()
  let done = false
  let heardAbort = false
  const tool = makeTool(
    'Stubborn',
    async (_input, ctx) => {
      ctx.signal.addEventListener('abort', () => {
        heardAbort = true
      })
      started.resolve(ctx)
      await release.promise
      done = true
      return 'finally done'
    },
    extra,
  )
  return { tool, started: started.promise, finish: () => release.resolve(), finished: () => done, heardAbort: () => heardAbort }
}

describe('R19 the timer starts after permission', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  async function approveAfter(waitMs: number, workMs: number) {
    vi.useFakeTimers(FAKE)
    const broker = new InMemoryPermissionBroker()
    const seen: { signal?: AbortSignal } = {}
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([approvedWorker(1000, seen)]), broker })
    const { events, emit } = collectEvents()
    const pending = executor.execute({ id: 'w', name: 'Work', input: { ms: workMs } }, { sessionId: 's', emit })
    await vi.advanceTimersByTimeAsync(waitMs)
    const [request] = eventsOfType(events, 'PermissionRequested')
    expect(broker.answer(request?.permissionId ?? '', { decision: 'allow', decidedBy: 'client' }).kind).toBe('settled')
    await vi.advanceTimersByTimeAsync(workMs)
    return { result: await pending, seen }
  }

  it('R19 ten seconds of approval wait against a 1 s timeout still run to success', async () => {
    const { result, seen } = await approveAfter(10_000, 500)
    expect(result.status).toBe('succeeded')
    expect(result.permission).toBe('approved')
    expect(result.perf.permissionWaitMs).toBeGreaterThanOrEqual(10_000)
    expect(result.perf.permissionWaitMs).toBeLessThan(10_050)
    expect(result.perf.totalMs).toBeGreaterThanOrEqual(10_500)
    expect(seen.signal?.aborted).toBe(false)
  })

  it('R19 the same tool still times out when its own work exceeds the timeout after approval', async () => {
    const { result, seen } = await approveAfter(10_000, 1500)
    expect(result.status).toBe('timed_out')
    expect(result.modelContent).toBe('Tool execution timed out after 1000ms')
    expect(seen.signal?.aborted).toBe(true)
  })

  it('R19 in real time: approval after 300 ms, timeout 100 ms, handler 20 ms -> success', async () => {
    const broker = new InMemoryPermissionBroker()
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([approvedWorker(100)]), broker })
    const emit = (event: { type: string; permissionId?: string }): void => {
      if (event.type !== 'PermissionRequested') return
      setTimeout(() => broker.answer(event.permissionId ?? '', { decision: 'allow', decidedBy: 'client' }), 300)
    }
    const result = await executor.execute({ id: 'w', name: 'Work', input: { ms: 20 } }, { sessionId: 's', emit })
    expect(result.status).toBe('succeeded')
    expect(result.perf.permissionWaitMs).toBeGreaterThanOrEqual(290)
  })
})

describe('R22 admission queueing pauses the deadline', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('R22 a 1 s tool whose model request queues 3 s behind another request survives', async () => {
    vi.useFakeTimers(FAKE)
    const gate = new AdmissionGate(1)
    const release = await gate.acquire()
    setTimeout(release, 3000)
    const model = delayedModel(200)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([modelUser()]), model, admission: gate })
    const { events, emit } = collectEvents()
    const pending = executor.execute({ id: 'm1', name: 'Ask', input: {} }, { sessionId: 's', emit })
    await vi.advanceTimersByTimeAsync(3200)
    const result = await pending

    expect(result.status).toBe('succeeded')
    expect(result.modelContent).toBe('answer to 1 message(s)')
    const statuses = eventsOfType(events, 'ModelNetworkStatus')
    expect(statuses.map((e) => [e.callId, e.status])).toEqual([
      ['m1', 'model_request_queued'],
      ['m1', 'model_request_admitted'],
      ['m1', 'model_request_completed'],
    ])
    expect(statuses[1]?.queuedMs).toBeCloseTo(3000, -1)
    expect(result.perf.queuedMs).toBeCloseTo(3000, -1)
  })

  it('R22 a real timeout after queueing reports the queued time in error.context and perf', async () => {
    vi.useFakeTimers(FAKE)
    const gate = new AdmissionGate(1)
    const release = await gate.acquire()
    setTimeout(release, 500)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([modelUser()]), model: delayedModel(5000), admission: gate })
    let settled = false
    const pending = executor.execute({ id: 'm2', name: 'Ask', input: {} }, { sessionId: 's' }).finally(() => {
      settled = true
    })
    await vi.advanceTimersByTimeAsync(1499)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const result = await pending

    expect(result.status).toBe('timed_out')
    expect(result.modelContent).toBe('Tool execution timed out after 1000ms')
    expect(result.error?.context?.queuedMs).toBeCloseTo(500, -1)
    expect(result.perf.queuedMs).toBeCloseTo(500, -1)
  })

  it('R22 in real time: queued 150 ms against a 100 ms timeout, model 20 ms -> success', async () => {
    const gate = new AdmissionGate(1)
    const release = await gate.acquire()
    setTimeout(release, 150)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([modelUser(100)]), model: delayedModel(20), admission: gate })
    const result = await executor.execute({ id: 'm3', name: 'Ask', input: {} }, { sessionId: 's' })
    expect(result.status).toBe('succeeded')
    expect(result.perf.queuedMs).toBeGreaterThanOrEqual(140)
  })
})

describe('R23 cancellation and timeout', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it.each<[string, ToolExtras, string]>([
    ['the default text', {}, 'Tool execution cancelled'],
    ["the tool's own text", { cancellation: { userVisibleMessage: 'Stopped by the user' } }, 'Stopped by the user'],
  ])('R23 a turn aborted before the call is cancelled at once with %s and the handler never runs', async (_label, extra, text) => {
    let calls = 0
    const tool = makeTool('Quick', () => Promise.resolve(++calls), extra)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([tool]) })
    const controller = new AbortController()
    controller.abort()
    const result = await executor.execute({ id: 'q', name: 'Quick', input: {} }, { sessionId: 's', signal: controller.signal })
    expect([result.status, result.success, result.modelContent]).toEqual(['cancelled', false, text])
    expect(calls).toBe(0)
  })

  it.each<[string, ToolExtras, string]>([
    ['the default text', {}, 'Tool execution cancelled'],
    ["the tool's own text", { cancellation: { userVisibleMessage: 'Interrupted: the command was stopped' } }, 'Interrupted: the command was stopped'],
  ])('R23 an abort during the run ends the call at once with %s while the handler still runs', async (_label, extra, text) => {
    const stubborn = stubbornTool(extra)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([stubborn.tool]) })
    const controller = new AbortController()
    const pending = executor.execute({ id: 'x', name: 'Stubborn', input: {} }, { sessionId: 's', signal: controller.signal })
    const ctx = await stubborn.started
    controller.abort()
    const result = await pending
    expect([result.status, result.modelContent, result.error?.errorClass]).toEqual(['cancelled', text, 'cancelled'])
    expect(ctx.signal.aborted).toBe(true)
    expect(stubborn.heardAbort()).toBe(true)
    expect(stubborn.finished()).toBe(false)
    stubborn.finish()
  })

  it('R23 a timeout aborts the handler signal and ends the call with the exact text, without waiting for the handler', async () => {
    vi.useFakeTimers(FAKE)
    const stubborn = stubbornTool({ timeout: { kind: 'deadline', defaultMs: 1000 } })
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([stubborn.tool]) })
    let settled = false
    const pending = executor.execute({ id: 't', name: 'Stubborn', input: {} }, { sessionId: 's' }).finally(() => {
      settled = true
    })
    const ctx = await stubborn.started
    await vi.advanceTimersByTimeAsync(999)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const result = await pending
    expect([result.status, result.success, result.modelContent]).toEqual(['timed_out', false, 'Tool execution timed out after 1000ms'])
    expect(result.error?.errorClass).toBe('timeout')
    expect(ctx.signal.aborted).toBe(true)
    expect((ctx.signal.reason as { code?: string }).code).toBe('EXEC_ERR_TIMEOUT')
    expect(stubborn.heardAbort()).toBe(true)
    expect(stubborn.finished()).toBe(false)
    stubborn.finish()
  })

  it('R23 in real time: a 50 ms timeout ends a handler that ignores its signal', async () => {
    const stubborn = stubbornTool({ timeout: { kind: 'deadline', defaultMs: 50 } })
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([stubborn.tool]) })
    const started = performance.now()
    const result = await executor.execute({ id: 't', name: 'Stubborn', input: {} }, { sessionId: 's' })
    const elapsed = performance.now() - started
    expect(result.modelContent).toBe('Tool execution timed out after 50ms')
    expect(elapsed).toBeGreaterThanOrEqual(45)
    expect(elapsed).toBeLessThan(1000)
    expect(stubborn.finished()).toBe(false)
    stubborn.finish()
  })
})
