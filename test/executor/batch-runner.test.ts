import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../src/contracts/tool-call.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { TURN_STOP_TEXT } from '../../src/executor/batch-runner.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { createBarrier, createConcurrencyProbe, eventsOfType, makeTool, sleep, submitResultTool, type ToolExtras } from '../support/schedule-tools.js'
import { collectEvents, editTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

const BYPASS = { permissionMode: 'bypassPermissions' } as const

/** Records `start:<id>` and `end:<id>` around a handler that waits `ms`. */
function timelineTool(name: string, timeline: string[], extra: ToolExtras = {}): ToolEntry {
  return makeTool(
    name,
    async (input, ctx) => {
      timeline.push(`start:${ctx.callId}`)
      await sleep(Number(input.ms ?? 5))
      timeline.push(`end:${ctx.callId}`)
      return `done ${ctx.callId}`
    },
    extra,
  )
}

describe('batch runner', () => {
  it('R1 executeBatch runs 25 calls with never more than 10 handlers in flight and returns results in call order', async () => {
    const probe = createConcurrencyProbe()
    const tool = makeTool('Probe', async (input) => {
      probe.enter()
      // Later calls finish first, so an order kept by completion would be visibly wrong.
      await sleep(30 - Number(input.n))
      probe.leave()
      return `n=${String(input.n)}`
    })
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([tool]) })
    const calls: ToolCall[] = Array.from({ length: 25 }, (_, n) => ({ id: `c${n}`, name: 'Probe', input: { n } }))

    const results = await executor.executeBatch(calls, { sessionId: 's' })

    expect(probe.peak).toBe(10)
    expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.id))
    expect(results.map((r) => r.modelContent)).toEqual(calls.map((_, n) => `n=${n}`))
  })

  it('R8 runs the calls of a group at the same time and the groups one after another, with batch events in order', async () => {
    const timeline: string[] = []
    const barrier = createBarrier(3)
    const together = makeTool('Together', async (_input, ctx) => {
      timeline.push(`start:${ctx.callId}`)
      await barrier.arrive()
      timeline.push(`end:${ctx.callId}`)
      return 'met'
    })
    const serial = timelineTool('Serial', timeline, { readOnly: false, concurrentSafe: false, permission: { sideEffectScope: 'workspace' } })
    const parallel = timelineTool('Parallel', timeline)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([together, serial, parallel]) })
    const { events, emit } = collectEvents()
    const calls: ToolCall[] = [
      { id: 'a', name: 'Together', input: {} },
      { id: 'b', name: 'Together', input: {} },
      { id: 'c', name: 'Together', input: {} },
      { id: 'd', name: 'Serial', input: { ms: 20 } },
      { id: 'e', name: 'Parallel', input: { ms: 10 } },
      { id: 'f', name: 'Parallel', input: { ms: 10 } },
    ]

    const outcome = await executor.executeSchedule(calls, { sessionId: 's', emit, ...BYPASS })

    expect(outcome.status).toBe('completed')
    expect(outcome.groups).toEqual([['a', 'b', 'c'], ['d'], ['e', 'f']])
    expect(outcome.results.map((r) => r.status)).toEqual(Array(6).fill('succeeded'))
    const batchEvents = events.filter((e) => e.type === 'BatchStarted' || e.type === 'BatchCompleted').map((e) => [e.type, 'batchIndex' in e ? e.batchIndex : -1, 'callIds' in e ? e.callIds : []])
    expect(batchEvents).toEqual([
      ['BatchStarted', 0, ['a', 'b', 'c']],
      ['BatchCompleted', 0, ['a', 'b', 'c']],
      ['BatchStarted', 1, ['d']],
      ['BatchCompleted', 1, ['d']],
      ['BatchStarted', 2, ['e', 'f']],
      ['BatchCompleted', 2, ['e', 'f']],
    ])
    // Every call of a group ends before the next group's first call starts.
    const index = (entry: string): number => timeline.indexOf(entry)
    expect(Math.max(index('end:a'), index('end:b'), index('end:c'))).toBeLessThan(index('start:d'))
    expect(index('end:d')).toBeLessThan(Math.min(index('start:e'), index('start:f')))
    // e and f overlap: both start before either ends.
    expect(Math.max(index('start:e'), index('start:f'))).toBeLessThan(Math.min(index('end:e'), index('end:f')))
  })

  it('R8 each event of a call falls between its batch events', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([timelineTool('Parallel', [])]) })
    const { events, emit } = collectEvents()
    await executor.executeSchedule(
      [
        { id: 'a', name: 'Parallel', input: {} },
        { id: 'b', name: 'Parallel', input: {} },
      ],
      { sessionId: 's', emit },
    )
    expect(events.map((e) => e.type)).toEqual(['BatchStarted', 'ToolCallStarted', 'ToolCallStarted', 'ToolCallResult', 'ToolCallResult', 'BatchCompleted'])
  })

  it('R9 a successful submit_result stops the turn: every call of every later group is cancelled without running', async () => {
    const ran: string[] = []
    const submit = submitResultTool(() => ran.push('submit'))
    const read = makeTool('Read', (_input, ctx) => {
      ran.push(ctx.callId)
      return Promise.resolve('read')
    })
    const edit = makeTool(
      'Edit',
      (_input, ctx) => {
        ran.push(ctx.callId)
        return Promise.resolve('edited')
      },
      { readOnly: false, concurrentSafe: false, permission: { sideEffectScope: 'workspace' } },
    )
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([submit, read, edit]) })
    const { events, emit } = collectEvents()
    const calls: ToolCall[] = [
      { id: 'a', name: 'Read', input: {} },
      { id: 'b', name: 'submit_result', input: {} },
      { id: 'c', name: 'Read', input: {} },
      { id: 'd', name: 'Read', input: {} },
      { id: 'e', name: 'Edit', input: {} },
      { id: 'f', name: 'Read', input: {} },
    ]

    const outcome = await executor.executeSchedule(calls, { sessionId: 's', emit, ...BYPASS })

    expect(outcome.groups).toEqual([['a'], ['b'], ['c', 'd'], ['e'], ['f']])
    expect(outcome.status).toBe('stopped')
    expect(ran).toEqual(['a', 'submit'])
    const [, submitted, ...later] = outcome.results
    expect(submitted?.success).toBe(true)
    expect(submitted?.control?.turnControl).toEqual({ reason: 'subagent_terminal', stopTurnAfterResult: true })
    expect(later.map((r) => [r.callId, r.status, r.success, r.modelContent])).toEqual(
      ['c', 'd', 'e', 'f'].map((id) => [id, 'cancelled', false, 'Tool cancelled because a previous tool result requested a turn stop.']),
    )
    expect(TURN_STOP_TEXT).toBe('Tool cancelled because a previous tool result requested a turn stop.')
    const resultEvents = eventsOfType(events, 'ToolCallResult')
    expect(resultEvents.map((e) => e.callId)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
    expect(resultEvents.slice(2).map((e) => e.result)).toEqual(later)
    expect(eventsOfType(events, 'ToolCallStarted').map((e) => e.callId)).toEqual(['a', 'b'])
    expect(eventsOfType(events, 'BatchCompleted').map((e) => [e.batchIndex, e.stopTurn])).toEqual([
      [0, false],
      [1, true],
    ])
  })

  it('R9 a failed submit_result does not stop the turn', async () => {
    const failing = makeTool('submit_result', () => Promise.resolve({ result: false as const, message: 'schema mismatch' }), {
      readOnly: false,
      concurrentSafe: false,
      permission: { sideEffectScope: 'session' },
    })
    const read = makeTool('Read', () => Promise.resolve('read'))
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([failing, read]) })
    const outcome = await executor.executeSchedule(
      [
        { id: 'a', name: 'submit_result', input: {} },
        { id: 'b', name: 'Read', input: {} },
      ],
      { sessionId: 's', ...BYPASS },
    )
    expect(outcome.status).toBe('completed')
    expect(outcome.results.map((r) => r.status)).toEqual(['failed', 'succeeded'])
  })

  it('R10 a failed Edit does not stop the next groups: later calls still run and the schedule completes', async () => {
    const timeline: string[] = []
    const read = timelineTool('Read', timeline)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([editTool, read]) })
    const outcome = await executor.executeSchedule(
      [
        { id: 'a', name: 'Edit', input: { file_path: 'x', fail: true } },
        { id: 'b', name: 'Read', input: {} },
        { id: 'c', name: 'Edit', input: { file_path: 'y' } },
      ],
      { sessionId: 's', ...BYPASS },
    )
    expect(outcome.status).toBe('completed')
    expect(outcome.results.map((r) => [r.callId, r.status, r.modelContent])).toEqual([
      ['a', 'failed', 'cannot edit x'],
      ['b', 'succeeded', 'done b'],
      ['c', 'succeeded', 'edited y'],
    ])
    expect(timeline).toEqual(['start:b', 'end:b'])
  })

  it('R10 each later call is still decided by its own permission', async () => {
    const read = makeTool('Read', () => Promise.resolve('read'))
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([editTool, read]) })
    const outcome = await executor.executeSchedule(
      [
        { id: 'a', name: 'Edit', input: { file_path: 'x' } },
        { id: 'b', name: 'Read', input: {} },
      ],
      { sessionId: 's' },
    )
    expect(outcome.results.map((r) => r.status)).toEqual(['denied', 'succeeded'])
    expect(outcome.status).toBe('completed')
  })

  it('R23 a turn aborted before the schedule marks it cancelled', async () => {
    const controller = new AbortController()
    controller.abort()
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([makeTool('Read', () => Promise.resolve('read'))]) })
    const outcome = await executor.executeSchedule([{ id: 'a', name: 'Read', input: {} }], { sessionId: 's', signal: controller.signal })
    expect(outcome.status).toBe('cancelled')
    expect(outcome.results[0]?.status).toBe('cancelled')
  })
})
