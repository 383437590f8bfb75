/** @module The built-in tool set the server registers. */
import type { ToolEntry } from '../contracts/tool-entry.js'

export function builtinTools(): ToolEntry[] {
  return []
}
