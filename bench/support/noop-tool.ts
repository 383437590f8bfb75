/** The no-op read-only tool the HTTP bench calls: no approval, no I/O, a short constant result. */
import { Type } from '@sinclair/typebox'
import { defineTool } from '../../src/contracts/tool-entry.js'

export const NOOP_TOOL_NAME = 'Noop'

export const noopTool = defineTool({
  name: NOOP_TOOL_NAME,
  description: 'Returns a short constant',
  inputSchema: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
  readOnly: true,
  destructive: false,
  concurrentSafe: true,
  permission: { sideEffectScope: 'none' },
  handler: () => Promise.resolve('ok'),
})

/** The POST /schedules body both HTTP targets receive: one call of the no-op tool. */
export function scheduleBody(sessionId: string, callId: string, n: number): string {
  return JSON.stringify({ sessionId, calls: [{ id: callId, name: NOOP_TOOL_NAME, input: { n } }] })
}
