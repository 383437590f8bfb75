import { describe, expect, it } from 'vitest'
import { createErrorResult } from '../../src/executor/errors.js'
import { askedDenialOutcome, PLAN_EXIT_DENIED, stopsTurn, SUBAGENT_TERMINAL, turnControlOnSuccess } from '../../src/executor/turn-control.js'
import { createExitPlanModeTool, PLAN_NOT_APPROVED_TEXT } from '../../src/tools/exit-plan-mode/index.js'
import { createReadTool } from '../../src/tools/read/index.js'
import { createSubmitResultTool } from '../../src/tools/submit-result/index.js'

const EXIT_PLAN_MODE = createExitPlanModeTool()

describe('turn control', () => {
  it('R30 submit_result stops the turn on success with subagent_terminal; other tools do not', () => {
    expect(turnControlOnSuccess(createSubmitResultTool())).toEqual({ reason: 'subagent_terminal', stopTurnAfterResult: true })
    expect(turnControlOnSuccess(createReadTool())).toBeUndefined()
    expect(turnControlOnSuccess(EXIT_PLAN_MODE)).toBeUndefined()
    expect(turnControlOnSuccess(undefined)).toBeUndefined()
  })

  it.each([
    ['no feedback', undefined, 'Permission denied for ExitPlanMode', PLAN_EXIT_DENIED, undefined],
    ['blank feedback', '   ', 'Permission denied for ExitPlanMode', PLAN_EXIT_DENIED, undefined],
    ['feedback', ' use a queue instead ', PLAN_NOT_APPROVED_TEXT, undefined, 'use a queue instead'],
  ])('R30 an ExitPlanMode denial with %s follows A5', (_label, feedback, text, control, userFeedback) => {
    const denial = EXIT_PLAN_MODE.askedDenial
    expect(denial).toBeDefined()
    if (denial !== undefined) expect(askedDenialOutcome(denial, 'ExitPlanMode', feedback)).toEqual({ modelContent: text, control, userFeedback })
  })

  it('R30 A5 gives the exact texts', () => {
    expect(PLAN_NOT_APPROVED_TEXT).toBe('The plan was not approved by the user.')
    expect(PLAN_EXIT_DENIED).toEqual({ reason: 'plan_exit_denied', stopTurnAfterResult: true })
  })

  it('R9 stopsTurn reads only the control signal of a result', () => {
    const failed = createErrorResult({ callId: 'a', toolName: 'T', status: 'failed', stage: 'handler', errorClass: 'exception', message: 'x' })
    expect(stopsTurn(failed)).toBe(false)
    expect(stopsTurn({ ...failed, control: { turnControl: SUBAGENT_TERMINAL } })).toBe(true)
    expect(stopsTurn({ ...failed, control: {} })).toBe(false)
  })
})
