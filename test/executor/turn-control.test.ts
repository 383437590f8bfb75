import { describe, expect, it } from 'vitest'
import { createErrorResult } from '../../src/executor/errors.js'
import {
  PLAN_EXIT_DENIED,
  PLAN_NOT_APPROVED_TEXT,
  planExitDenial,
  stopsTurn,
  SUBAGENT_TERMINAL,
  turnControlOnSuccess,
} from '../../src/executor/turn-control.js'

describe('turn control', () => {
  it('R30 submit_result stops the turn on success with subagent_terminal; other tools do not', () => {
    expect(turnControlOnSuccess('submit_result')).toEqual({ reason: 'subagent_terminal', stopTurnAfterResult: true })
    expect(turnControlOnSuccess('Read')).toBeUndefined()
    expect(turnControlOnSuccess('ExitPlanMode')).toBeUndefined()
  })

  it.each([
    ['no feedback', undefined, 'Permission denied for ExitPlanMode', PLAN_EXIT_DENIED, undefined],
    ['blank feedback', '   ', 'Permission denied for ExitPlanMode', PLAN_EXIT_DENIED, undefined],
    ['feedback', ' use a queue instead ', PLAN_NOT_APPROVED_TEXT, undefined, 'use a queue instead'],
  ])('R30 an ExitPlanMode denial with %s follows A5', (_label, feedback, text, control, userFeedback) => {
    expect(planExitDenial(feedback)).toEqual({ modelContent: text, control, userFeedback })
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
