import { posix } from 'node:path'
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import type { PermissionService } from '../../src/contracts/ports.js'
import type { ToolCall } from '../../src/contracts/tool-call.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { createFunctionHookRunner, type FunctionHook } from '../../src/hooks/function-hook-runner.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { evaluateMode } from '../../src/permissions/mode-permission-service.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { eventsOfType, makeTool, memoryLogger, sleep } from '../support/schedule-tools.js'
import { collectEvents } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

const WORKSPACE_TOOL = { readOnly: false, concurrentSafe: false, permission: { sideEffectScope: 'workspace' } } as const
const pathOf = (input: unknown): string => String((input as { path?: unknown }).path)

/** A tool that writes down when each of its functions runs, and with which input. */
function tracedTool(log: string[]): ToolEntry {
  return makeTool(
    'Traced',
    (input) => {
      log.push(`handler:${pathOf(input)}`)
      return Promise.resolve(`wrote ${pathOf(input)}`)
    },
    {
      ...WORKSPACE_TOOL,
      inputSchema: Type.Object({ path: Type.String() }),
      resolveInput(input) {
        log.push(`resolveInput:${pathOf(input)}`)
        return { path: posix.normalize(pathOf(input)) }
      },
      prepareApproval(input) {
        log.push(`prepareApproval:${pathOf(input)}`)
        return { preview: { text: `write ${pathOf(input)}` } }
      },
      formatModelContent(output) {
        log.push('serialize')
        return String(output)
      },
    },
  )
}

function tracedRun(log: string[], extraHooks: FunctionHook[] = []) {
  const broker = new InMemoryPermissionBroker()
  const permissions: PermissionService = {
    evaluate(query) {
      log.push(`permission:${pathOf(query.input)}`)
      return evaluateMode(query)
    },
  }
  const hooks = createFunctionHookRunner([
    ...extraHooks,
    { event: 'PreToolUse', name: 'pre', run: (payload) => void log.push(`PreToolUse:${pathOf(payload.toolInput)}`) },
    { event: 'PostToolUse', name: 'post', run: (payload) => void log.push(`PostToolUse:${pathOf(payload.toolInput)}`) },
  ])
  const executor = createTestExecutor({ registry: new InMemoryToolRegistry([tracedTool(log)]), permissions, hooks, broker })
  const emit = (event: ExecutorEvent): void => {
    if (event.type === 'PermissionRequested') {
      log.push(`PermissionRequested:${pathOf(event.input)}`)
      broker.answer(event.permissionId, { decision: 'allow', decidedBy: 'client' })
    } else if (event.type === 'ToolCallStarted') log.push(`ToolCallStarted:${pathOf(event.input)}`)
    else if (event.type === 'PermissionResolved' || event.type === 'ToolCallResult') log.push(event.type)
  }
  return { executor, emit }
}

describe('R12 the order of one call', () => {
  it('R12 R13 runs resolveInput, PreToolUse, permission, approval, handler, serialization, PostToolUse in order on one input', async () => {
    const log: string[] = []
    const { executor, emit } = tracedRun(log)
    const result = await executor.execute({ id: 'c', name: 'Traced', input: { path: 'a/b/../c.txt' } }, { sessionId: 's', emit })
    expect(result.status).toBe('succeeded')
    expect(log).toEqual([
      'resolveInput:a/b/../c.txt',
      'PreToolUse:a/c.txt',
      'permission:a/c.txt',
      'prepareApproval:a/c.txt',
      'PermissionRequested:a/c.txt',
      'PermissionResolved',
      'ToolCallStarted:a/c.txt',
      'handler:a/c.txt',
      'serialize',
      'PostToolUse:a/c.txt',
      'ToolCallResult',
    ])
  })

  it('R12 schema validation comes before resolveInput: an invalid input reaches no later stage', async () => {
    const log: string[] = []
    const { executor, emit } = tracedRun(log)
    const result = await executor.execute({ id: 'c', name: 'Traced', input: { path: 7 } }, { sessionId: 's', emit })
    expect(result.error?.stage).toBe('validation')
    expect(log).toEqual(['ToolCallResult'])
  })

  it('R13 an input rewritten by a PreToolUse hook is resolved again and is what the permission and handler see', async () => {
    const log: string[] = []
    const rewrite: FunctionHook = { event: 'PreToolUse', name: 'rewrite', run: () => ({ updatedInput: { path: 'x/../y.txt' } }) }
    const { executor, emit } = tracedRun(log, [rewrite])
    await executor.execute({ id: 'c', name: 'Traced', input: { path: 'a.txt' } }, { sessionId: 's', emit })
    expect(log.slice(0, 4)).toEqual(['resolveInput:a.txt', 'PreToolUse:a.txt', 'resolveInput:x/../y.txt', 'permission:y.txt'])
    expect(log).toContain('handler:y.txt')
  })
})

describe('R25-R27 failures', () => {
  const strict = makeTool('Strict', () => Promise.resolve('ok'), {
    inputSchema: Type.Object({ file_path: Type.String() }, { additionalProperties: false }),
  })
  const business = makeTool('Lookup', () => Promise.resolve({ result: false as const, errorCode: 'FILE_MISSING', message: 'File does not exist: /x' }))
  const thrower = (error: unknown): ToolEntry => makeTool('Thrower', () => Promise.reject(error))
  const wrapped = Object.assign(new Error('request failed'), {
    wrapper: true,
    cause: Object.assign(new Error('fetch failed'), { wrapper: true, cause: new Error('ENOSPC:  no space\n\tleft on device ') }),
  })

  it.each<[string, ToolEntry[], ToolCall, string, string]>([
    ['an unknown tool', [], { id: 'c', name: 'Nope', input: {} }, 'Tool not found: Nope', 'lookup'],
    ['an unknown tool whose name has newlines and tabs (projected)', [], { id: 'c', name: 'No\n\tpe\r\n  x ', input: {} }, 'Tool not found: No pe x', 'lookup'],
    ['an unknown tool with a very long name (projected)', [], { id: 'c', name: 'n'.repeat(600), input: {} }, `Tool not found: ${'n'.repeat(481)}...`, 'lookup'],
    ['an empty tool name', [], { id: 'c', name: '', input: {} }, '<tool_use_error>Error: No such tool available: </tool_use_error>', 'lookup'],
    [
      'a missing parameter',
      [strict],
      { id: 'c', name: 'Strict', input: {} },
      '<tool_use_error>InputValidationError: Strict failed due to the following issue:\nThe required parameter `file_path` is missing</tool_use_error>',
      'validation',
    ],
    [
      'a wrong type and an unexpected parameter',
      [strict],
      { id: 'c', name: 'Strict', input: { file_path: 3, mode: 'x' } },
      '<tool_use_error>InputValidationError: Strict failed due to the following issues:\n' +
        'An unexpected parameter `mode` was provided\n' +
        'The parameter `file_path` type is expected as `string` but provided as `number`</tool_use_error>',
      'validation',
    ],
    ['a business failure returned as a value', [business], { id: 'c', name: 'Lookup', input: {} }, '<tool_use_error>File does not exist: /x</tool_use_error>', 'handler'],
    ['a thrown error with a chain of wrappers', [thrower(wrapped)], { id: 'c', name: 'Thrower', input: {} }, 'ENOSPC: no space left on device', 'handler'],
    ['a thrown error that is not a wrapper', [thrower(new Error('outer', { cause: new Error('inner') }))], { id: 'c', name: 'Thrower', input: {} }, 'outer', 'handler'],
    ['a thrown string', [thrower('boom')], { id: 'c', name: 'Thrower', input: {} }, 'boom', 'handler'],
    ['a very long message', [thrower(new Error('é'.repeat(600)))], { id: 'c', name: 'Thrower', input: {} }, `${'é'.repeat(497)}...`, 'handler'],
  ])('R25 R26 %s becomes a failed result with the exact model text', async (_label, tools, theCall, modelContent, stage) => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry(tools) })
    const { events, emit } = collectEvents()
    const result = await executor.execute(theCall, { sessionId: 's', emit })
    expect(result.success).toBe(false)
    expect(result.isError).toBe(true)
    expect(result.modelContent).toBe(modelContent)
    expect(result.toolName).toBe(theCall.name)
    expect(result.error?.stage).toBe(stage)
    expect(eventsOfType(events, 'ToolCallResult')[0]?.result).toEqual(result)
  })

  it('R26 a business failure keeps its plain message and error code for the UI', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([business]) })
    const result = await executor.execute({ id: 'c', name: 'Lookup', input: {} }, { sessionId: 's' })
    expect(result.error).toMatchObject({ message: 'File does not exist: /x', code: 'FILE_MISSING', errorClass: 'business' })
  })

  it('R25 R43 an unknown tool is logged as tool.call.not_found', async () => {
    const { logger, records } = memoryLogger()
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([]), logger })
    await executor.execute({ id: 'c', name: 'Nope', input: {} }, { sessionId: 's' })
    expect(records.map((r) => [r.msg, r.toolName, r.callId])).toEqual([['tool.call.not_found', 'Nope', 'c']])
  })

  it('R28 an output with isError: true is a success that history treats as an error', async () => {
    const lint = makeTool('Lint', () => Promise.resolve({ isError: true, text: '3 problems' }))
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([lint]) })
    const result = await executor.execute({ id: 'c', name: 'Lint', input: {} }, { sessionId: 's' })
    expect([result.success, result.status, result.isError]).toEqual([true, 'succeeded', true])
  })
})

describe('R37 R39 R42 the two projections of a result', () => {
  const lookup = makeTool('Lookup', (input) => Promise.resolve(input.missing === true ? { result: false as const, message: 'File does not exist: /x' } : 'found'))
  const hooks = createFunctionHookRunner([{ event: 'PostToolUseFailure', name: 'diagnose', run: () => ({ additionalContext: 'Check the path' }) }])

  it.each<[string, Record<string, unknown>]>([
    ['a success', {}],
    ['a failure', { missing: true }],
  ])('R37 the ToolCallResult event of %s carries the very result execute returns', async (_label, input) => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([lookup]), hooks })
    const { events, emit } = collectEvents()
    const result = await executor.execute({ id: 'c', name: 'Lookup', input }, { sessionId: 's', emit })
    const resultEvents = eventsOfType(events, 'ToolCallResult')
    expect(resultEvents).toHaveLength(1)
    expect(resultEvents[0]).toEqual({ type: 'ToolCallResult', sessionId: 's', callId: 'c', toolName: 'Lookup', result })
  })

  it('R39 a failure keeps the UI message and the exact model content, hook context included', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([lookup]), hooks })
    const { events, emit } = collectEvents()
    await executor.execute({ id: 'c', name: 'Lookup', input: { missing: true } }, { sessionId: 's', emit })
    const stored = JSON.parse(JSON.stringify(eventsOfType(events, 'ToolCallResult')[0]?.result)) as { error: { message: string }; modelContent: string }
    expect(stored.error.message).toBe('File does not exist: /x')
    expect(stored.modelContent).toBe('<tool_use_error>File does not exist: /x</tool_use_error>\n\n[Hook additional context]\n#1\nCheck the path')
  })

  it('R42 measures totalMs and permissionWaitMs and never shows them to the model', async () => {
    const broker = new InMemoryPermissionBroker()
    const slow = makeTool(
      'Slow',
      async () => {
        await sleep(30)
        return 'done'
      },
      WORKSPACE_TOOL,
    )
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([slow]), broker })
    const emit = (event: ExecutorEvent): void => {
      if (event.type === 'PermissionRequested') setTimeout(() => broker.answer(event.permissionId, { decision: 'allow', decidedBy: 'client' }), 40)
    }
    const asked = await executor.execute({ id: 'a', name: 'Slow', input: {} }, { sessionId: 's', emit })
    const bypassed = await executor.execute({ id: 'b', name: 'Slow', input: {} }, { sessionId: 's', permissionMode: 'bypassPermissions' })

    expect(asked.perf.permissionWaitMs).toBeGreaterThanOrEqual(35)
    expect(asked.perf.permissionWaitMs).toBeLessThan(1000)
    expect(asked.perf.totalMs).toBeGreaterThanOrEqual(asked.perf.permissionWaitMs + 25)
    expect(bypassed.perf.permissionWaitMs).toBe(0)
    expect(bypassed.perf.totalMs).toBeGreaterThanOrEqual(25)
    expect(bypassed.perf.totalMs).toBeLessThan(1000)
    for (const result of [asked, bypassed]) {
      expect(result.modelContent).toBe('done')
      expect(JSON.stringify(result.modelContent)).not.toMatch(/totalMs|permissionWaitMs|queuedMs/)
    }
  })
})
