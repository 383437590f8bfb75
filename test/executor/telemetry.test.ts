import { SpanStatusCode } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../src/contracts/tool-call.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { answeringSink, makeTool, memoryLogger, memoryTracer } from '../support/schedule-tools.js'
import { editTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

const read = makeTool('Read', () => Promise.resolve('contents'))
const wordy = makeTool('Wordy', () => Promise.resolve('x'.repeat(500)), {
  resultBudget: { maxModelBytes: 100, maxInlineBytes: 100, strategy: 'truncate', previewDirection: 'head' },
})

function tracedExecutor(broker?: InMemoryPermissionBroker) {
  const { provider, exporter } = memoryTracer()
  const executor = createTestExecutor({ registry: new InMemoryToolRegistry([read, wordy, editTool]), tracer: provider.getTracer('t'), broker })
  const spanOf = (callId: string): ReadableSpan => {
    const spans = exporter.getFinishedSpans().filter((span) => span.attributes['tool.call_id'] === callId)
    expect(spans).toHaveLength(1)
    return spans[0] as ReadableSpan
  }
  return { executor, exporter, spanOf }
}

describe('R41 spans', () => {
  it('R41 records one span per call', async () => {
    const { executor, exporter } = tracedExecutor()
    const calls: ToolCall[] = [
      { id: 'a', name: 'Read', input: {} },
      { id: 'b', name: 'Read', input: {} },
      { id: 'c', name: 'Nope', input: {} },
      { id: 'd', name: 'Edit', input: { file_path: 'x' } },
    ]
    await executor.executeSchedule(calls, { sessionId: 's' })
    expect(
      exporter
        .getFinishedSpans()
        .map((span) => span.attributes['tool.call_id'])
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd'])
  })

  it('R41 an invented tool name is traced as unknown while the result names the real tool', async () => {
    const { executor, spanOf } = tracedExecutor()
    const result = await executor.execute({ id: 'c', name: 'Frobnicate', input: {} }, { sessionId: 's' })
    const span = spanOf('c')
    expect(span.name).toBe('tool unknown')
    expect(span.attributes['tool.name']).toBe('unknown')
    expect(JSON.stringify([span.name, span.attributes])).not.toContain('Frobnicate')
    expect([result.toolName, result.modelContent]).toEqual(['Frobnicate', 'Tool not found: Frobnicate'])
    expect(span.attributes['tool.error.stage']).toBe('lookup')
    expect(span.attributes['tool.error.class']).toBe('not_found')
    expect(span.status.code).toBe(SpanStatusCode.ERROR)
  })

  it('R41 a successful call records its name, permission, output bytes and truncation', async () => {
    const { executor, spanOf } = tracedExecutor()
    await executor.execute({ id: 'r', name: 'Read', input: {} }, { sessionId: 's' })
    await executor.execute({ id: 'w', name: 'Wordy', input: {} }, { sessionId: 's' })
    expect(spanOf('r').name).toBe('tool Read')
    expect(spanOf('r').attributes).toMatchObject({ 'tool.name': 'Read', 'tool.permission': 'none', 'tool.output_bytes': 8, 'tool.truncated': false })
    expect(spanOf('w').attributes).toMatchObject({ 'tool.permission': 'none', 'tool.output_bytes': 500, 'tool.truncated': true })
    expect(spanOf('r').attributes['tool.error.stage']).toBeUndefined()
    expect(spanOf('r').status.code).not.toBe(SpanStatusCode.ERROR)
  })

  it.each<[string, ToolCall, boolean, string, string, string]>([
    ['denied without a client', { id: 'd', name: 'Edit', input: { file_path: 'x' } }, false, 'denied', 'permission', 'permission_denied'],
    ['approved, then the handler throws', { id: 'h', name: 'Edit', input: { file_path: 'x', fail: true } }, true, 'approved', 'handler', 'exception'],
    ['with an invalid input', { id: 'v', name: 'Edit', input: { file_path: 1 } }, false, 'none', 'validation', 'validation'],
  ])('R41 a call %s records the permission verdict, the failing stage and the error class', async (_label, theCall, approve, permission, stage, errorClass) => {
    const broker = new InMemoryPermissionBroker()
    const { executor, spanOf } = tracedExecutor(approve ? broker : undefined)
    const { emit } = answeringSink(broker, { decision: 'allow', decidedBy: 'client' })
    await executor.execute(theCall, { sessionId: 's', emit })
    expect(spanOf(theCall.id).attributes).toMatchObject({
      'tool.permission': permission,
      'tool.error.stage': stage,
      'tool.error.class': errorClass,
    })
  })
})

describe('R43 log events', () => {
  it('R43 logs started, completed, failed and not_found through a real pino logger', async () => {
    const { logger, records } = memoryLogger()
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([read, editTool]), logger })
    await executor.executeSchedule(
      [
        { id: 'a', name: 'Read', input: {} },
        { id: 'b', name: 'Nope', input: {} },
        { id: 'c', name: 'Edit', input: { file_path: 'x', fail: true } },
      ],
      { sessionId: 's', permissionMode: 'bypassPermissions' },
    )
    const callEvents = records.filter((r) => String(r.msg).startsWith('tool.call.')).map((r) => [r.msg, r.callId, r.toolName, r.sessionId])
    expect(callEvents).toEqual([
      ['tool.call.started', 'a', 'Read', 's'],
      ['tool.call.completed', 'a', 'Read', 's'],
      ['tool.call.not_found', 'b', 'Nope', 's'],
      ['tool.call.started', 'c', 'Edit', 's'],
      ['tool.call.failed', 'c', 'Edit', 's'],
    ])
    const failed = records.find((r) => r.msg === 'tool.call.failed')
    expect(failed).toMatchObject({ stage: 'handler', errorClass: 'exception', status: 'failed' })
    expect(typeof failed?.totalMs).toBe('number')
  })
})
