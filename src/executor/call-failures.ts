/** @module Every failure of a call ends here: one builder (R25), hook context added after (R27). */
import type { CallStatus, ErrorClass, ErrorStage, ToolExecutionResult, TurnControl } from '../contracts/result.js'
import type { CallState } from './call-runner.js'
import { createErrorResult } from './errors.js'

export interface FailureSpec {
  readonly status: CallStatus
  readonly stage: ErrorStage
  readonly errorClass: ErrorClass
  readonly message: string
  readonly modelContent?: string | undefined
  readonly code?: string | undefined
  readonly context?: Record<string, unknown> | undefined
  readonly turnControl?: TurnControl | undefined
  readonly output?: unknown
}

export function finishFailure(state: CallState, spec: FailureSpec): Promise<ToolExecutionResult> {
  const result = createErrorResult({ ...spec, callId: state.call.id, toolName: state.call.name })
  if (spec.turnControl === undefined) return state.finish(result)
  return state.finish({ ...result, control: { turnControl: spec.turnControl } })
}
