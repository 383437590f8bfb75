/**
 * @module A handler whose work needs no waiting, as the promise ToolEntry.handler returns:
 * what the work throws rejects that promise, as it would from an async function.
 */
import type { ToolCallContext } from '../contracts/tool-context.js'

export function synchronousHandler<I, O>(work: (input: I, ctx: ToolCallContext) => O): (input: I, ctx: ToolCallContext) => Promise<O> {
  return (input, ctx) => new Promise<O>((resolve) => resolve(work(input, ctx)))
}
