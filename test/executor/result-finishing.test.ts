import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { createFunctionHookRunner } from '../../src/hooks/function-hook-runner.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { SUBAGENT_TERMINAL } from '../../src/contracts/result.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { createTestExecutor } from '../support/executor.js'

const submitResult: ToolEntry = {
  name: 'submit_result',
  description: 'Ends the turn with a result',
  inputSchema: Type.Object({ result: Type.String() }),
  readOnly: false,
  destructive: false,
  concurrentSafe: false,
  permission: { sideEffectScope: 'session' },
  turnControlOnSuccess: SUBAGENT_TERMINAL,
  handler: (input) => Promise.resolve(`submitted ${(input as { result: string }).result}`),
}

const contextHooks = createFunctionHookRunner([{ event: 'PostToolUse', name: 'note', run: () => ({ additionalContext: 'checked by policy' }) }])

describe('finishing a result', () => {
  it('R27 the empty-name text is built at lookup and later additions do not change it', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([]) })
    const result = await executor.execute({ id: 'c', name: '', input: {} }, { sessionId: 's' })
    expect(result.modelContent).toBe('<tool_use_error>Error: No such tool available: </tool_use_error>')
    expect(result.control).toBeUndefined()
    expect(result.hookContext).toEqual([])
  })

  it('R27 turn control and hook context are added after the tool output, in that order of building', async () => {
    const executor = createTestExecutor({
      registry: new InMemoryToolRegistry([submitResult]),
      hooks: contextHooks,
      permissions: { evaluate: () => ({ behavior: 'allow' }) },
    })
    const result = await executor.execute({ id: 'c', name: 'submit_result', input: { result: 'done' } }, { sessionId: 's' })
    expect(result.output).toBe('submitted done')
    expect(result.control).toEqual({ turnControl: { reason: 'subagent_terminal', stopTurnAfterResult: true } })
    expect(result.modelContent).toBe('submitted done\n\n[Hook additional context]\n#1\nchecked by policy')
    expect(result.hookContext).toEqual(['checked by policy'])
  })
})
