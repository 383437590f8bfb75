/**
 * @module Running sets and schedules of calls: a batch runs together with at most
 * maxConcurrency in flight (R8); groups run one after another; a turn-stop signal cancels
 * every later group (R9); a failure does not (R10).
 */
import type { ToolCall } from '../contracts/tool-call.js'
import type { TurnContext } from '../contracts/ports.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import { executeToolCall } from './call-runner.js'
import { createErrorResult } from './errors.js'
import type { ExecutorDeps } from './deps.js'
import { emitEvent } from './events.js'
import { LOG_EVENTS } from './telemetry.js'
import { stopsTurn } from './turn-control.js'

export const TURN_STOP_TEXT = 'Tool cancelled because a previous tool result requested a turn stop.'

export type ScheduleStatus = 'completed' | 'stopped' | 'cancelled'

export interface ScheduleOutcome {
  readonly status: ScheduleStatus
  readonly groups: readonly (readonly string[])[]
  /** In the model's order. */
  readonly results: readonly ToolExecutionResult[]
}

/** R8: Promise.all semantics with a bounded number in flight; results keep the call order. */
export async function executeBatch(calls: readonly ToolCall[], turn: TurnContext, deps: ExecutorDeps): Promise<ToolExecutionResult[]> {
  if (calls.length <= deps.maxConcurrency) return Promise.all(calls.map((call) => executeToolCall(call, turn, deps)))
  const results = new Array<ToolExecutionResult>(calls.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < calls.length) {
      const index = next++
      results[index] = await executeToolCall(calls[index] as ToolCall, turn, deps)
    }
  }
  await Promise.all(Array.from({ length: deps.maxConcurrency }, worker))
  return results
}

export async function runGroups(calls: readonly ToolCall[], groups: readonly (readonly string[])[], turn: TurnContext, deps: ExecutorDeps, turnStopped = false): Promise<ScheduleOutcome> {
  const byId = new Map(calls.map((call) => [call.id, call]))
  const resultsById = new Map<string, ToolExecutionResult>()
  let stopped = turnStopped
  for (let batchIndex = 0; batchIndex < groups.length; batchIndex++) {
    const group = (groups[batchIndex] ?? []).map((id) => byId.get(id) as ToolCall)
    if (stopped) {
      for (const call of group) resultsById.set(call.id, await cancelAfterTurnStop(call, turn, deps))
      continue
    }
    const results = await runOneGroup(group, batchIndex, turn, deps)
    for (const result of results) resultsById.set(result.callId, result)
    stopped = results.some(stopsTurn)
  }
  const status: ScheduleStatus = turn.signal?.aborted === true ? 'cancelled' : stopped ? 'stopped' : 'completed'
  return { status, groups, results: calls.map((call) => resultsById.get(call.id) as ToolExecutionResult) }
}

async function runOneGroup(group: readonly ToolCall[], batchIndex: number, turn: TurnContext, deps: ExecutorDeps): Promise<ToolExecutionResult[]> {
  const callIds = group.map((call) => call.id)
  const base = { sessionId: turn.sessionId, scheduleId: turn.scheduleId, batchIndex, callIds }
  await emitEvent(turn.emit, { type: 'BatchStarted', ...base })
  const results = await executeBatch(group, turn, deps)
  await emitEvent(turn.emit, { type: 'BatchCompleted', ...base, stopTurn: results.some(stopsTurn) })
  return results
}

/** R9: the synthetic result of every call in a group after a turn stop. */
async function cancelAfterTurnStop(call: ToolCall, turn: TurnContext, deps: ExecutorDeps): Promise<ToolExecutionResult> {
  const result = createErrorResult({
    callId: call.id,
    toolName: call.name,
    status: 'cancelled',
    stage: 'scheduling',
    errorClass: 'turn_stop',
    message: TURN_STOP_TEXT,
    code: 'EXEC_ERR_TURN_STOPPED',
  })
  deps.logger.info({ sessionId: turn.sessionId, callId: call.id, toolName: call.name }, LOG_EVENTS.cancelledAfterTurnStop)
  await emitEvent(turn.emit, { type: 'ToolCallResult', sessionId: turn.sessionId, callId: call.id, toolName: call.name, result })
  return result
}
