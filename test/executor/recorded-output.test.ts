import { describe, expect, it } from 'vitest'
import type { HookPayload } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { createFunctionHookRunner, type FunctionHook } from '../../src/hooks/function-hook-runner.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { eventsOfType, makeTool } from '../support/schedule-tools.js'
import { collectEvents } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

interface Bulky {
  readonly text: string
}

/** A tool whose output carries a large text, and whose record keeps only its length. */
function bulkyTool(): ToolEntry {
  return makeTool<Bulky>('Bulky', (input) => Promise.resolve({ text: String(input.text) }), {
    formatModelContent: (output) => `made ${output.text.length} characters`,
    buildDisplay: ({ output }) => ({ kind: 'mcp_tool', server: 's', tool: 'Bulky', text: output.text.slice(0, 5), isError: false, truncated: true }),
    recordedOutput: (output) => ({ length: output.text.length }),
  })
}

function run(hooks: FunctionHook[]) {
  const executor = createTestExecutor({ registry: new InMemoryToolRegistry([bulkyTool()]), hooks: createFunctionHookRunner(hooks) })
  const { events, emit } = collectEvents()
  const execute = (text: string) => executor.execute({ id: 'b1', name: 'Bulky', input: { text } }, { sessionId: 's', emit })
  return { execute, events }
}

describe('a tool that declares what is recorded of its output', () => {
  it('has its record returned and streamed, while the display, the model and PostToolUse hooks get the whole output', async () => {
    const seen: HookPayload[] = []
    const { execute, events } = run([{ event: 'PostToolUse', name: 'keep', run: (payload) => void seen.push(payload) }])
    const text = 'abcdefgh'.repeat(1000)
    const result = await execute(text)
    expect(result.status).toBe('succeeded')
    expect(result.output).toEqual({ length: 8000 })
    expect(result.modelContent).toBe('made 8000 characters')
    expect(result.display).toMatchObject({ kind: 'mcp_tool', text: 'abcde' })
    expect(eventsOfType(events, 'ToolCallResult')[0]?.result.output).toEqual({ length: 8000 })
    expect(seen[0]?.toolResult?.output).toEqual({ text })
  })

  it('keeps only the record when a PostToolUse hook blocks the result', async () => {
    const { execute, events } = run([{ event: 'PostToolUse', name: 'block', run: () => ({ decision: 'block', reason: 'not this time' }) }])
    const result = await execute('x'.repeat(100))
    expect(result.error?.stage).toBe('post_tool_use')
    expect(result.output).toEqual({ length: 100 })
    expect(eventsOfType(events, 'ToolCallResult')[0]?.result.output).toEqual({ length: 100 })
  })
})
