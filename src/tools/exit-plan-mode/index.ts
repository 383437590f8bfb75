/**
 * @module ExitPlanMode {plan}: asks the user to approve the plan (always, even when
 * permissions are bypassed) and, once approved, puts back the mode the session had before
 * plan mode (SPEC A1: F/F/F/session, serial; 100000 bytes, truncate; 30000 ms). A denial
 * never reaches the handler: the executor answers it as SPEC A5 says.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { PermissionMode } from '../../contracts/ports.js'
import { PLAN_EXIT_DENIED } from '../../contracts/result.js'
import { defineTool, type ToolBusinessFailure, type ToolEntry } from '../../contracts/tool-entry.js'
import { sessionControl, takeModeBeforePlan } from '../enter-plan-mode/plan-mode-memory.js'

export const EXIT_PLAN_MODE_TOOL_NAME = 'ExitPlanMode'

const ExitPlanModeInputSchema = Type.Object(
  { plan: Type.String({ minLength: 1, description: 'The plan to carry out, in Markdown; the user approves it as written' }) },
  { additionalProperties: false },
)
export type ExitPlanModeInput = Static<typeof ExitPlanModeInputSchema>

export interface ExitPlanModeOutput {
  readonly plan: string
  readonly restoredMode: PermissionMode
}

const DESCRIPTION = 'Presents the plan for approval and, once the user approves, leaves plan mode so that the work can start. ' + 'Use it only in plan mode, after exploring, with the complete plan.'

/** A5: what the model reads when the person rejected the plan and said why. */
export const PLAN_NOT_APPROVED_TEXT = 'The plan was not approved by the user.'

export const NOT_IN_PLAN_MODE_TEXT = 'You are not in plan mode, so there is nothing to exit. If your plan was already approved, carry it out.'

export function approvedPlanText(restoredMode: PermissionMode): string {
  return `The user approved the plan. Plan mode is over (permission mode: ${restoredMode}); carry out the plan now.`
}

/** @example registry.register(createExitPlanModeTool()) */
export function createExitPlanModeTool(): ToolEntry<ExitPlanModeInput, ExitPlanModeOutput> {
  return defineTool({
    name: EXIT_PLAN_MODE_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: ExitPlanModeInputSchema,
    readOnly: false,
    destructive: false,
    concurrentSafe: false,
    permission: { sideEffectScope: 'session', alwaysAsk: true },
    timeout: { kind: 'deadline', defaultMs: 30_000 },
    resultBudget: { maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'truncate', previewDirection: 'head' },
    askedDenial: { withFeedback: PLAN_NOT_APPROVED_TEXT, withoutFeedback: PLAN_EXIT_DENIED },
    prepareApproval: (input) => ({ preview: { title: 'Plan', text: input.plan } }),
    formatModelContent: (output: ExitPlanModeOutput) => approvedPlanText(output.restoredMode),
    handler: async function exitPlanMode(input, ctx): Promise<ExitPlanModeOutput | ToolBusinessFailure> {
      const control = sessionControl(ctx)
      if ((await control.getPermissionMode(ctx.sessionId)) !== 'plan') {
        return { result: false, errorCode: 'TOOL_ERR_NOT_IN_PLAN_MODE', message: NOT_IN_PLAN_MODE_TEXT }
      }
      const restoredMode = takeModeBeforePlan(control, ctx.sessionId)
      await control.setPermissionMode(ctx.sessionId, restoredMode)
      return { plan: input.plan, restoredMode }
    },
  })
}
