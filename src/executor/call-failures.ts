/** @module The result of every failure of a call: one builder (R25), with turn control when asked (A5). */
import type { ToolExecutionResult, TurnControl } from '../contracts/result.js'
import type { ToolCall } from '../contracts/tool-call.js'
import { createErrorResult, type ErrorResultInput } from './errors.js'

/** createErrorResult's input less what the call state knows, plus turn control (A5). */
export interface FailureSpec extends Omit<ErrorResultInput, 'callId' | 'toolName' | 'perf' | 'permission'> {
  readonly turnControl?: TurnControl | undefined
}

export function failureResult(call: Pick<ToolCall, 'id' | 'name'>, spec: FailureSpec): ToolExecutionResult {
  const result = createErrorResult({ ...spec, callId: call.id, toolName: call.name })
  return spec.turnControl === undefined ? result : { ...result, control: { turnControl: spec.turnControl } }
}
