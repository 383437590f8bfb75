/**
 * @module A schedule in a model API's shape: whether it is done, whether a result stops the
 * turn (R30), and once done the results as that API's next request carries them.
 */
import type { CallRecord, FormattedScheduleReply, ScheduleReply } from '../contracts/api.js'
import type { ModelFormat } from '../contracts/model-formats.js'
import type { TurnControl } from '../contracts/result.js'
import { anthropicToolResults } from './anthropic.js'
import type { ModelResult } from './model-result.js'
import { openaiChatMessages } from './openai-chat.js'
import { openaiResponsesInput } from './openai-responses.js'

/** Every call has its result and no more can come. */
export function isScheduleDone(schedule: ScheduleReply): boolean {
  return schedule.status !== 'open' && schedule.calls.every((call) => call.result !== undefined)
}

export function turnControlOf(calls: readonly CallRecord[]): TurnControl | undefined {
  for (const call of calls) {
    const control = call.result?.control?.turnControl
    if (control?.stopTurnAfterResult === true) return control
  }
  return undefined
}

/** `results` are the calls' results in call order, images with their bytes; undefined while not done. */
export function formattedSchedule(schedule: ScheduleReply, format: ModelFormat, results: readonly ModelResult[] | undefined): FormattedScheduleReply {
  const turnControl = turnControlOf(schedule.calls)
  const base = {
    scheduleId: schedule.scheduleId,
    sessionId: schedule.sessionId,
    turnId: schedule.turnId,
    status: schedule.status,
    done: results !== undefined,
    stopTurn: turnControl !== undefined,
    ...(turnControl === undefined ? null : { turnControl }),
  }
  if (results === undefined) return base
  if (format === 'anthropic') return { ...base, message: anthropicToolResults(results) }
  if (format === 'openai-chat') return { ...base, messages: openaiChatMessages(results) }
  return { ...base, input: openaiResponsesInput(results) }
}
