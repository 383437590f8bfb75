import { describe, expect, it } from 'vitest'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { InMemoryTodoStore, type TodoItem } from '../../src/tools/services.js'
import { createTodoWriteTool, type TodoWriteOutput } from '../../src/tools/todo-write/index.js'
import { tempDir } from '../support/permission-tools.js'
import { readTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

async function harness(withStore = true) {
  const todos = new InMemoryTodoStore()
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createTodoWriteTool(), readTool]),
    artifacts: new FsArtifactStore({ dataDir: await tempDir('todo') }),
    services: withStore ? { todos } : {},
  })
  let next = 0
  const write = (input: unknown, sessionId = 's1'): Promise<ToolExecutionResult> => executor.execute({ id: `t${++next}`, name: 'TodoWrite', input }, { sessionId, permissionMode: 'bypassPermissions' })
  return { executor, todos, write }
}

const LIST: TodoItem[] = [
  { content: 'Read the spec', status: 'completed' },
  { content: 'Write the tool', status: 'in_progress', activeForm: 'Writing the tool' },
  { content: 'Write the tests', status: 'pending' },
]

describe('TodoWrite', () => {
  it('R12 stores the list per session and answers with a short confirmation and the list', async () => {
    const { todos, write } = await harness()
    const result = await write({ todos: LIST })
    expect(result.status).toBe('succeeded')
    expect(result.modelContent).toBe(
      'Todo list updated (3 items: 1 completed, 1 in progress, 1 pending).\n' + '1. [completed] Read the spec\n2. [in_progress] Write the tool\n3. [pending] Write the tests',
    )
    expect(await todos.get('s1')).toEqual(LIST)
    expect(await todos.get('s2')).toEqual([])
    const second = await write({ todos: [{ content: 'Elsewhere', status: 'pending' }] }, 's2')
    expect((second.output as TodoWriteOutput).oldTodos).toEqual([])
    const replaced = await write({ todos: [{ content: 'Ship', status: 'in_progress' }] })
    expect(replaced.output).toEqual({ oldTodos: LIST, newTodos: [{ content: 'Ship', status: 'in_progress' }] })
    expect(await todos.get('s1')).toEqual([{ content: 'Ship', status: 'in_progress' }])
    expect(await todos.get('s2')).toEqual([{ content: 'Elsewhere', status: 'pending' }])
  })

  it('R12 clears the list when given none', async () => {
    const { todos, write } = await harness()
    await write({ todos: LIST })
    const result = await write({ todos: [] })
    expect(result.modelContent).toBe('Todo list cleared (0 items).')
    expect(await todos.get('s1')).toEqual([])
  })

  it('R26 refuses two items in progress with a tool_use_error and keeps the old list', async () => {
    const { todos, write } = await harness()
    await write({ todos: LIST })
    const result = await write({
      todos: [
        { content: 'a', status: 'in_progress' },
        { content: 'b', status: 'in_progress' },
      ],
    })
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('TOOL_ERR_TODO_SEVERAL_IN_PROGRESS')
    expect(result.modelContent).toBe('<tool_use_error>At most one todo may be in_progress, but 2 are: "a", "b". Mark the others pending or completed.</tool_use_error>')
    expect(await todos.get('s1')).toEqual(LIST)
  })

  it.each([
    ['an unknown status', { todos: [{ content: 'a', status: 'done' }] }],
    ['an empty content', { todos: [{ content: '', status: 'pending' }] }],
    ['a missing list', {}],
  ])('R26 rejects %s through schema validation', async (_case, input) => {
    const { write } = await harness()
    const result = await write(input)
    expect(result.error?.stage).toBe('validation')
    expect(result.modelContent).toMatch(/^<tool_use_error>InputValidationError: TodoWrite failed due to the following issues?:/)
  })

  it('R25 fails with a clear message when the host gives no todo store', async () => {
    const { write } = await harness(false)
    const result = await write({ todos: LIST })
    expect([result.status, result.modelContent]).toEqual(['failed', 'TodoWrite needs a todo store (services.todos), and none is configured'])
  })

  it('R32 truncates a confirmation over 100000 bytes at the head with the notice', async () => {
    const { write } = await harness()
    const many = Array.from({ length: 3000 }, (_, index) => ({ content: `Task number ${index} ${'é'.repeat(20)}`, status: 'pending' }))
    const result = await write({ todos: many })
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'truncate' })
    const content = result.modelContent as string
    expect(content.startsWith('Todo list updated (3000 items')).toBe(true)
    expect(content).toMatch(/\[Tool output truncated by resultBudget: originalBytes=\d+, maxModelBytes=100000, strategy=truncate\]$/)
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(100_000)
  })

  it('R3 makes TodoWrite serial: declared read-only but scope session, 30000 ms', async () => {
    const { executor } = await harness()
    const calls = [
      { id: 'a', name: 'Read', input: { file_path: 'x' } },
      { id: 'b', name: 'TodoWrite', input: { todos: [] } },
      { id: 'c', name: 'TodoWrite', input: { todos: [] } },
    ]
    expect(executor.plan(calls)).toEqual([['a'], ['b'], ['c']])
    expect(executor.flagsOf(calls[1] as (typeof calls)[number])).toMatchObject({ readOnly: false, concurrentSafe: false, sideEffectScope: 'session' })
    expect(resolveTimeoutMs(createTodoWriteTool(), { todos: [], timeout: 5 }, 300_000)).toBe(30_000)
  })
})
