/** @module Running an accepted schedule and recording how it ended. */
import type { ToolCall } from '../contracts/tool-call.js'
import type { SessionRecord } from '../contracts/store.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import { stopsTurn } from '../executor/turn-control.js'
import { stateChangeFor } from './event-policy.js'
import type { Executor } from '../executor/executor.js'
import type { EventJournal } from './event-journal.js'
import type { Turns } from './turns.js'

/** What running a schedule uses. */
export interface RunnerParts {
  readonly journal: EventJournal
  readonly executor: Executor
  readonly turns: Turns
}

export interface AcceptedSchedule {
  readonly id: string
  readonly session: SessionRecord
  readonly turnId: string
  readonly calls: ToolCall[]
  readonly signal: AbortSignal
}

/** Runs `calls` as planned (R5), after `earlier` results of the same turn (early dispatch, recovery). */
export async function runAccepted(parts: RunnerParts, schedule: AcceptedSchedule, calls: readonly ToolCall[], earlier: readonly ToolExecutionResult[] = []): Promise<void> {
  // Rides in the commit of the schedule's first events rather than paying a commit of its own.
  parts.journal.stage(schedule.session.id, (unit) => unit.schedules.setStatus(schedule.id, 'running', null))
  const turn = parts.turns.of(schedule.session, schedule.id, schedule.turnId, schedule.signal)
  const outcome = await parts.executor.executeSchedule(pruneDependencies(calls), turn, earlier.some(stopsTurn))
  const status = schedule.signal.aborted ? 'cancelled' : earlier.some(stopsTurn) ? 'stopped' : outcome.status
  const event = { type: 'ScheduleCompleted' as const, sessionId: schedule.session.id, scheduleId: schedule.id, status }
  // On a full disk the end is kept and written when space returns; the session moves on.
  await parts.journal.appendEnsured(event, stateChangeFor(event))
}

/** Dependencies on calls outside this set have already ended, so they no longer constrain the plan. */
export function pruneDependencies(calls: readonly ToolCall[]): ToolCall[] {
  const ids = new Set(calls.map((call) => call.id))
  return calls.map((call) => {
    if (call.dependsOn === undefined) return call
    const kept = call.dependsOn.filter((dep) => ids.has(dep))
    const pruned: ToolCall = { id: call.id, name: call.name, input: call.input }
    if (kept.length > 0) pruned.dependsOn = kept
    return pruned
  })
}
