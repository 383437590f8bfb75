/** @module The one place that attaches turn control to results (R9, R30, A5). */
import type { TurnControl, ToolExecutionResult } from '../contracts/result.js'

export const SUBAGENT_TERMINAL: TurnControl = Object.freeze({ reason: 'subagent_terminal', stopTurnAfterResult: true })
export const PLAN_EXIT_DENIED: TurnControl = Object.freeze({ reason: 'plan_exit_denied', stopTurnAfterResult: true })
export const PLAN_NOT_APPROVED_TEXT = 'The plan was not approved by the user.'

/** Tools whose success stops the turn. */
const STOP_ON_SUCCESS: ReadonlyMap<string, TurnControl> = new Map([['submit_result', SUBAGENT_TERMINAL]])

export function turnControlOnSuccess(toolName: string): TurnControl | undefined {
  return STOP_ON_SUCCESS.get(toolName)
}

export interface PlanExitDenial {
  readonly modelContent: string
  readonly control: TurnControl | undefined
  readonly userFeedback: string | undefined
}

/** A5: a denial with feedback goes on (the feedback is the user's next input); without, it stops. */
export function planExitDenial(feedback: string | undefined): PlanExitDenial {
  const trimmed = feedback?.trim()
  if (trimmed !== undefined && trimmed.length > 0) {
    return { modelContent: PLAN_NOT_APPROVED_TEXT, control: undefined, userFeedback: trimmed }
  }
  return { modelContent: 'Permission denied for ExitPlanMode', control: PLAN_EXIT_DENIED, userFeedback: undefined }
}

export function stopsTurn(result: Pick<ToolExecutionResult, 'control'>): boolean {
  return result.control?.turnControl?.stopTurnAfterResult === true
}
