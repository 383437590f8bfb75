/** @module How conversation history classifies a result (R28). */
import type { ToolExecutionResult } from '../contracts/result.js'

type HistoryView = Pick<ToolExecutionResult, 'success' | 'status' | 'toolName' | 'output'>

/**
 * R28: a failed result is an error; so is a successful one whose output says `isError: true`,
 * and an interrupted Bash (its partial output must not read as a clean run).
 */
export function isErrorForHistory(result: HistoryView): boolean {
  if (!result.success) return true
  if (result.status === 'interrupted' && result.toolName === 'Bash') return true
  return outputSaysError(result.output)
}

function outputSaysError(output: unknown): boolean {
  return typeof output === 'object' && output !== null && (output as { isError?: unknown }).isError === true
}
