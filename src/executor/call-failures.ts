/** @module Every failure of a call ends here: one builder (R25), hook context added after (R27). */
import type { ToolExecutionResult, TurnControl } from '../contracts/result.js'
import type { CallState } from './call-runner.js'
import { createErrorResult, type ErrorResultInput } from './errors.js'

/** createErrorResult's input less what the call state knows, plus turn control (A5). */
export interface FailureSpec extends Omit<ErrorResultInput, 'callId' | 'toolName' | 'perf' | 'permission'> {
  readonly turnControl?: TurnControl | undefined
}

export function finishFailure(state: CallState, spec: FailureSpec): Promise<ToolExecutionResult> {
  const result = createErrorResult({ ...spec, callId: state.call.id, toolName: state.call.name })
  if (spec.turnControl === undefined) return state.finish(result)
  return state.finish({ ...result, control: { turnControl: spec.turnControl } })
}
