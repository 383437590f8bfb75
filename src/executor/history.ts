/** @module How conversation history classifies a result (R28). */
import type { ToolExecutionResult } from '../contracts/result.js'
import type { ToolEntry } from '../contracts/tool-entry.js'

type HistoryView = Pick<ToolExecutionResult, 'success' | 'status' | 'output'>

/**
 * R28: a failed result is an error; so is a successful one whose output says `isError: true`,
 * and an interrupted call of a tool whose entry says so (Bash: its partial output must not
 * read as a clean run).
 */
export function isErrorForHistory(result: HistoryView, entry?: Pick<ToolEntry, 'interruptedIsError'>): boolean {
  if (!result.success) return true
  if (result.status === 'interrupted' && entry?.interruptedIsError === true) return true
  return outputSaysError(result.output)
}

function outputSaysError(output: unknown): boolean {
  return typeof output === 'object' && output !== null && (output as { isError?: unknown }).isError === true
}
