/**
 * @module EnterPlanMode {}: switches the session's permission mode to `plan` (SPEC A1:
 * F/F/F/session, serial; 100000 bytes, truncate; 30000 ms), remembering the mode it left.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { PermissionMode } from '../../contracts/ports.js'
import { defineTool, type ToolEntry } from '../../contracts/tool-entry.js'
import { rememberModeBeforePlan, sessionControl } from './plan-mode-memory.js'

export const ENTER_PLAN_MODE_TOOL_NAME = 'EnterPlanMode'

const EnterPlanModeInputSchema = Type.Object({}, { additionalProperties: false })
export type EnterPlanModeInput = Static<typeof EnterPlanModeInputSchema>

export interface EnterPlanModeOutput {
  readonly previousMode: PermissionMode
  readonly alreadyInPlanMode: boolean
}

const DESCRIPTION = 'Switches this session to plan mode: explore and design before changing anything. ' + 'When the plan is ready, present it with ExitPlanMode for the user to approve.'

export const ENTERED_PLAN_MODE_TEXT =
  'Entered plan mode. Explore the code and design an approach; do not edit files or run commands that change anything. ' +
  'When the plan is ready, present it with ExitPlanMode for the user to approve.'
export const ALREADY_IN_PLAN_MODE_TEXT = 'Already in plan mode. When the plan is ready, present it with ExitPlanMode.'

/** @example registry.register(createEnterPlanModeTool()) */
export function createEnterPlanModeTool(): ToolEntry<EnterPlanModeInput, EnterPlanModeOutput> {
  return defineTool({
    name: ENTER_PLAN_MODE_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: EnterPlanModeInputSchema,
    readOnly: false,
    destructive: false,
    concurrentSafe: false,
    permission: { sideEffectScope: 'session' },
    timeout: { kind: 'deadline', defaultMs: 30_000 },
    resultBudget: { maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'truncate', previewDirection: 'head' },
    formatModelContent: (output: EnterPlanModeOutput) => (output.alreadyInPlanMode ? ALREADY_IN_PLAN_MODE_TEXT : ENTERED_PLAN_MODE_TEXT),
    handler: async function enterPlanMode(_input, ctx): Promise<EnterPlanModeOutput> {
      const control = sessionControl(ctx)
      const previousMode = await control.getPermissionMode(ctx.sessionId)
      // Entering twice must not make `plan` the mode to return to.
      if (previousMode === 'plan') return { previousMode, alreadyInPlanMode: true }
      rememberModeBeforePlan(control, ctx.sessionId, previousMode)
      await control.setPermissionMode(ctx.sessionId, 'plan')
      return { previousMode, alreadyInPlanMode: false }
    },
  })
}
