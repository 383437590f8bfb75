import { describe, expect, it } from 'vitest'
import type { PermissionService } from '../../src/contracts/ports.js'
import type { ToolCall } from '../../src/contracts/tool-call.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { evaluateMode } from '../../src/permissions/mode-permission-service.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { bashLikeTool, eventsOfType, makeTool, todoWriteLikeTool } from '../support/schedule-tools.js'
import { collectEvents } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

const read = makeTool('Read', () => Promise.resolve('read'))
const call = (id: string, name: string, input: unknown = {}): ToolCall => ({ id, name, input })

describe('tool flags through the executor', () => {
  it('R3 a tool declared read-only with scope session is not read-only to the executor', () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([todoWriteLikeTool()]) })
    expect(executor.flagsOf(call('t', 'TodoWrite'))).toEqual({
      readOnly: false,
      destructive: false,
      concurrentSafe: false,
      sideEffectScope: 'session',
      alwaysAsk: false,
      requiresUserInteraction: false,
      dependencies: [],
    })
  })

  it('R3 it changes only the session, so the default mode runs it without a client; alwaysAsk still asks', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([todoWriteLikeTool(), { ...todoWriteLikeTool('Asking'), permission: { sideEffectScope: 'session', alwaysAsk: true } }]) })
    const result = await executor.execute(call('t', 'TodoWrite'), { sessionId: 's' })
    expect(result.status).toBe('succeeded')
    const asking = await executor.execute(call('u', 'Asking'), { sessionId: 's' })
    expect([asking.status, asking.modelContent]).toEqual(['denied', 'No permission client configured'])
  })

  it.each<[string, boolean, string[][]]>([
    ['serial when not concurrent-safe (TodoWrite)', false, [['a'], ['t'], ['b']]],
    ['parallel when concurrent-safe (Agent)', true, [['a', 't', 'b']]],
  ])('R7 a read-only session-scoped tool is %s', (_label, concurrentSafe, groups) => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([read, todoWriteLikeTool('Todo', concurrentSafe)]) })
    expect(executor.plan([call('a', 'Read'), call('t', 'Todo'), call('b', 'Read')])).toEqual(groups)
  })

  it.each<[string, string, boolean, string, string[][]]>([
    ['git status', 'git status', true, 'none', [['a', 'g', 'b']]],
    ['git log with arguments', 'git log --oneline -5', true, 'none', [['a', 'g', 'b']]],
    ['a command that writes', 'rm -rf build', false, 'system', [['a'], ['g'], ['b']]],
  ])('R40 a Bash-like call of %s has its own flags, grouping and ToolCallStarted flags', async (_label, command, readOnly, scope, groups) => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([read, bashLikeTool()]) })
    const calls = [call('a', 'Read'), call('g', 'Bash', { command }), call('b', 'Read')]
    expect(executor.plan(calls)).toEqual(groups)
    const { events, emit } = collectEvents()
    await executor.executeSchedule(calls, { sessionId: 's', emit, permissionMode: 'bypassPermissions' })
    const started = eventsOfType(events, 'ToolCallStarted').find((e) => e.callId === 'g')
    expect(started?.flags.readOnly).toBe(readOnly)
    expect(started?.flags.sideEffectScope).toBe(scope)
  })

  it('R40 a read-only Bash command needs no approval in the default mode; another one does', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([bashLikeTool()]) })
    const outcome = await executor.executeSchedule([call('g', 'Bash', { command: 'git status' }), call('n', 'Bash', { command: 'npm install' })], {
      sessionId: 's',
    })
    expect(outcome.results.map((r) => [r.status, r.permission])).toEqual([
      ['succeeded', 'none'],
      ['denied', 'denied'],
    ])
  })
})

describe('R11 early dispatch', () => {
  const guarded: PermissionService = {
    evaluate: (query) => (query.toolName === 'Guarded' ? { behavior: 'ask', reason: 'rule asks' } : evaluateMode(query)),
  }
  const tools: ToolEntry[] = [
    read,
    makeTool('Destroy', () => Promise.resolve('x'), { destructive: true }),
    makeTool('AskUser', () => Promise.resolve('x'), { requiresUserInteraction: true }),
    makeTool('AlwaysAsk', () => Promise.resolve('x'), { permission: { sideEffectScope: 'none', alwaysAsk: true } }),
    makeTool('WebFetch', () => Promise.resolve('x'), { permission: { sideEffectScope: 'network' } }),
    makeTool('Guarded', () => Promise.resolve('x')),
    makeTool('Lonely', () => Promise.resolve('x'), { concurrentSafe: false }),
    bashLikeTool(),
  ]
  const executor = createTestExecutor({ registry: new InMemoryToolRegistry(tools), permissions: guarded })

  it.each<[string, ToolCall, boolean]>([
    ['a read-only, concurrent-safe, scope-none tool the mode allows', call('r', 'Read'), true],
    ['a read-only Bash command', call('g', 'Bash', { command: 'git status' }), true],
    ['a destructive tool', call('d', 'Destroy'), false],
    ['a tool that requires user interaction', call('u', 'AskUser'), false],
    ['an alwaysAsk tool', call('x', 'AlwaysAsk'), false],
    ['a tool with scope network', call('w', 'WebFetch'), false],
    ['a tool that needs approval', call('q', 'Guarded'), false],
    ['a tool that is not concurrent-safe', call('l', 'Lonely'), false],
    ['a Bash command that writes', call('b', 'Bash', { command: 'rm -rf x' }), false],
    ['an unknown tool', call('n', 'Nope'), false],
  ])('R11 canDispatchEarly for %s', async (_label, theCall, expected) => {
    expect(await executor.canDispatchEarly(theCall, { sessionId: 's' })).toBe(expected)
  })

  it('R11 an early call goes through the same pipeline', async () => {
    const { events, emit } = collectEvents()
    const theCall = call('r', 'Read')
    expect(await executor.canDispatchEarly(theCall, { sessionId: 's' })).toBe(true)
    const result = await executor.execute(theCall, { sessionId: 's', emit })
    expect(result.status).toBe('succeeded')
    expect(events.map((e) => e.type)).toEqual(['ToolCallStarted', 'ToolCallResult'])
  })
})
