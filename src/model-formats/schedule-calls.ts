/**
 * @module A schedule's calls from whichever of the four shapes the body gives: toolexec's own
 * `calls`, or one model API's reply. Exactly one must be there.
 */
import { MAX_SCHEDULE_CALLS, type CreateScheduleBody, type ScheduleCallInput } from '../contracts/api.js'
import { ToolexecError } from '../contracts/errors.js'
import { callsFromAnthropic } from './anthropic.js'
import { callsFromOpenAIChat } from './openai-chat.js'
import { callsFromOpenAIResponses } from './openai-responses.js'

const CALL_SOURCES = ['calls', 'anthropic', 'openaiChat', 'openaiResponses'] as const

export function scheduleCallsOf(body: CreateScheduleBody): ScheduleCallInput[] {
  const given = CALL_SOURCES.filter((source) => body[source] !== undefined)
  if (given.length !== 1) {
    const found = given.length === 0 ? 'none was' : `${given.join(' and ')} were`
    throw new ToolexecError('API_ERR_VALIDATION', [`body must have exactly one of ${CALL_SOURCES.join(', ')}; ${found} given`])
  }
  const calls = callsOf(body)
  if (calls.length > MAX_SCHEDULE_CALLS) throw new ToolexecError('API_ERR_VALIDATION', [`A schedule holds at most ${MAX_SCHEDULE_CALLS} calls; ${given[0]} has ${calls.length}`])
  return calls
}

function callsOf(body: CreateScheduleBody): ScheduleCallInput[] {
  if (body.anthropic !== undefined) return callsFromAnthropic(body.anthropic)
  if (body.openaiChat !== undefined) return callsFromOpenAIChat(body.openaiChat)
  if (body.openaiResponses !== undefined) return callsFromOpenAIResponses(body.openaiResponses)
  return body.calls ?? []
}
