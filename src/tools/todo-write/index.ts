/**
 * @module TodoWrite {todos}: replaces the session's todo list (SPEC A1: T/F/F/session, so
 * serial by R3; 100000 bytes, truncate; 30000 ms). At most one item may be in progress.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type ToolBusinessFailure, type ToolEntry } from '../../contracts/tool-entry.js'
import type { TodoItem, TodoStore } from '../services.js'

export const TODO_WRITE_TOOL_NAME = 'TodoWrite'

const TodoItemSchema = Type.Object(
  {
    content: Type.String({ minLength: 1, description: 'What to do, imperative: "Run the tests"' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('in_progress'), Type.Literal('completed')]),
    activeForm: Type.Optional(Type.String({ minLength: 1, description: 'Shown while in progress: "Running the tests"' })),
  },
  { additionalProperties: false },
)

const TodoWriteInputSchema = Type.Object({ todos: Type.Array(TodoItemSchema, { description: 'The whole updated list, in order' }) }, { additionalProperties: false })
export type TodoWriteInput = Static<typeof TodoWriteInputSchema>

export interface TodoWriteOutput {
  readonly oldTodos: readonly TodoItem[]
  readonly newTodos: readonly TodoItem[]
}

const DESCRIPTION =
  'Replaces the todo list of this session with `todos` (the whole list, in order). ' +
  'Use it to plan and track multi-step work; keep exactly one item in_progress while working and mark items completed as soon as they are done.'

function todoStore(ctx: ToolCallContext): TodoStore {
  const store = ctx.services.todos
  if (store === undefined) throw new Error('TodoWrite needs a todo store (services.todos), and none is configured')
  return store
}

function tooManyInProgress(todos: readonly TodoItem[]): ToolBusinessFailure | undefined {
  const active = todos.filter((todo) => todo.status === 'in_progress')
  if (active.length <= 1) return undefined
  const names = active.map((todo) => JSON.stringify(todo.content)).join(', ')
  return {
    result: false,
    errorCode: 'TOOL_ERR_TODO_SEVERAL_IN_PROGRESS',
    message: `At most one todo may be in_progress, but ${active.length} are: ${names}. Mark the others pending or completed.`,
  }
}

function summary(todos: readonly TodoItem[]): string {
  const count = (status: TodoItem['status']): number => todos.filter((todo) => todo.status === status).length
  const items = todos.length === 1 ? '1 item' : `${todos.length} items`
  return `${items}: ${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending`
}

/** The confirmation the model reads: a short line, then the list as stored. */
export function formatTodoList(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'Todo list cleared (0 items).'
  const lines = todos.map((todo, index) => `${index + 1}. [${todo.status}] ${todo.content}`)
  return `Todo list updated (${summary(todos)}).\n${lines.join('\n')}`
}

function stored(todo: TodoWriteInput['todos'][number]): TodoItem {
  return todo.activeForm === undefined ? { content: todo.content, status: todo.status } : { ...todo }
}

/** @example registry.register(createTodoWriteTool()) */
export function createTodoWriteTool(): ToolEntry<TodoWriteInput, TodoWriteOutput> {
  return defineTool({
    name: TODO_WRITE_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: TodoWriteInputSchema,
    readOnly: true,
    destructive: false,
    concurrentSafe: false,
    permission: { sideEffectScope: 'session' },
    timeout: { kind: 'deadline', defaultMs: 30_000 },
    resultBudget: { maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'truncate', previewDirection: 'head' },
    formatModelContent: (output: TodoWriteOutput) => formatTodoList(output.newTodos),
    handler: async function todoWrite(input, ctx): Promise<TodoWriteOutput | ToolBusinessFailure> {
      const store = todoStore(ctx)
      const newTodos = input.todos.map(stored)
      const invalid = tooManyInProgress(newTodos)
      if (invalid !== undefined) return invalid
      const oldTodos = await store.get(ctx.sessionId)
      await store.set(ctx.sessionId, newTodos)
      return { oldTodos, newTodos }
    },
  })
}
