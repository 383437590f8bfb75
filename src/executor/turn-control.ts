/** @module The one place that attaches turn control to results (R9, R30, A5); each tool's entry declares it. */
import { PLAN_EXIT_DENIED, SUBAGENT_TERMINAL, type ToolExecutionResult, type TurnControl } from '../contracts/result.js'
import type { AskedDenial, ToolEntry } from '../contracts/tool-entry.js'

export { PLAN_EXIT_DENIED, SUBAGENT_TERMINAL }

/** The control a success of this tool attaches (submit_result's SUBAGENT_TERMINAL). */
export function turnControlOnSuccess(entry: Pick<ToolEntry, 'turnControlOnSuccess'> | undefined): TurnControl | undefined {
  return entry?.turnControlOnSuccess
}

export interface AskedDenialOutcome {
  readonly modelContent: string
  readonly control: TurnControl | undefined
  readonly userFeedback: string | undefined
}

/** A5: a denial with feedback goes on (the feedback is the user's next input); without, it stops. */
export function askedDenialOutcome(denial: AskedDenial, toolName: string, feedback: string | undefined): AskedDenialOutcome {
  const trimmed = feedback?.trim()
  if (trimmed !== undefined && trimmed.length > 0) {
    return { modelContent: denial.withFeedback, control: undefined, userFeedback: trimmed }
  }
  return { modelContent: `Permission denied for ${toolName}`, control: denial.withoutFeedback, userFeedback: undefined }
}

export function stopsTurn(result: Pick<ToolExecutionResult, 'control'>): boolean {
  return result.control?.turnControl?.stopTurnAfterResult === true
}
