/** Real tool entries for executor tests: each does what its name says. */
import { Type } from '@sinclair/typebox'
import { defineTool, type ToolEntry } from '../../src/contracts/tool-entry.js'
import type { ExecutorEvent } from '../../src/contracts/events.js'

/** Returns its text; anything over 64 bytes goes to an artifact (R32). */
export const dumpTool = defineTool({
  name: 'Dump',
  description: 'Returns the text it was given',
  inputSchema: Type.Object({ text: Type.String() }),
  readOnly: true,
  destructive: false,
  concurrentSafe: true,
  permission: { sideEffectScope: 'none' },
  resultBudget: { strategy: 'artifact', maxModelBytes: 64, maxInlineBytes: 64, previewDirection: 'head' },
  retention: 'session',
  handler: (input) => Promise.resolve(input.text),
})

export const readTool = defineTool({
  name: 'Read',
  description: 'Returns the path it was given',
  inputSchema: Type.Object({ file_path: Type.String() }, { additionalProperties: false }),
  readOnly: true,
  destructive: false,
  concurrentSafe: true,
  permission: { sideEffectScope: 'none' },
  accessTarget: (input) => ({ kind: 'file', access: 'read', path: input.file_path }),
  handler: (input) => Promise.resolve(`contents of ${input.file_path}`),
})

export const editTool = defineTool({
  name: 'Edit',
  description: 'Pretends to edit; fails when asked to',
  inputSchema: Type.Object({ file_path: Type.String(), fail: Type.Optional(Type.Boolean()) }),
  readOnly: false,
  destructive: false,
  concurrentSafe: false,
  permission: { sideEffectScope: 'workspace' },
  accessTarget: (input) => ({ kind: 'file', access: 'write', path: input.file_path }),
  handler: (input) => {
    if (input.fail === true) return Promise.reject(new Error(`cannot edit ${input.file_path}`))
    return Promise.resolve(`edited ${input.file_path}`)
  },
})

export function sleepTool(name = 'Sleep', extra: Partial<ToolEntry> = {}): ToolEntry {
  return {
    name,
    description: 'Sleeps for ms unless aborted',
    inputSchema: Type.Object({ ms: Type.Number() }),
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    handler: (input, ctx) =>
      new Promise((resolve, reject) => {
        const ms = (input as { ms: number }).ms
        const timer = setTimeout(() => resolve(`slept ${ms}`), ms)
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(ctx.signal.reason as Error)
        })
      }),
    ...extra,
  }
}

export function collectEvents(): { events: ExecutorEvent[]; emit: (event: ExecutorEvent) => void } {
  const events: ExecutorEvent[] = []
  return { events, emit: (event) => void events.push(event) }
}
