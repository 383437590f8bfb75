/**
 * @module Crash recovery, at start, for every unfinished schedule (on a shared database, for
 * each session this node takes over from a node that died or stopped): a call whose handler had
 * started gets a terminal `interrupted` record (it is never run again); a call waiting for
 * approval keeps its request, answerable after the restart, and then runs; calls not yet
 * started run. In a schedule the session's abort had reached, they end cancelled instead and
 * a pending approval resolves as abort. A background task still recorded as running is lost
 * (lost-tasks.ts). Every outcome is an event in the session's one sequence.
 */
import { ToolexecError } from '../contracts/errors.js'
import type { ToolCall } from '../contracts/tool-call.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import type { CallRow, ScheduleRecord } from '../contracts/store.js'
import { createErrorResult } from '../executor/errors.js'
import { stateChangeFor } from './event-policy.js'
import type { Logger } from 'pino'
import type { Store } from '../contracts/store.js'
import type { Executor } from '../executor/executor.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'
import { markLostTasks, type LostTaskParts } from './lost-tasks.js'
import { pruneDependencies } from './schedule-runner.js'
import type { ScheduleService } from './schedule-service.js'
import { TURN_ABORTED } from './session-service.js'

export const INTERRUPTED_TEXT = 'Tool execution was interrupted: the server stopped while this tool was running. It was not run again; check its effects before retrying.'

export interface RecoveryReport {
  readonly schedules: number
  readonly interrupted: number
  readonly resumed: number
}

/** What recovery reads and writes. */
export interface RecoveryParts extends LostTaskParts {
  readonly store: Pick<Store, 'sessions' | 'schedules' | 'approvals' | 'tasks' | 'commit'>
  readonly journal: EventJournal
  readonly executor: Pick<Executor, 'plan'>
  readonly live: LiveSessions
  readonly logger: Logger
}

export async function recoverUnfinished(ctx: RecoveryParts, schedules: ScheduleService): Promise<RecoveryReport> {
  await markLostTasks(ctx)
  return recoverSchedules(ctx, schedules, await ctx.store.schedules.unfinished())
}

/** The same for one session this node has just taken over from another (on a database several nodes share). */
export async function recoverSession(ctx: RecoveryParts, schedules: ScheduleService, sessionId: string): Promise<RecoveryReport> {
  await markLostTasks(ctx, sessionId)
  const ids = await ctx.store.schedules.unfinishedIdsOf(sessionId)
  const records = await Promise.all(ids.map((id) => ctx.store.schedules.get(id)))
  const unfinished = records.filter((record): record is ScheduleRecord => record !== undefined).sort((a, b) => a.arrival - b.arrival)
  return recoverSchedules(ctx, schedules, unfinished)
}

async function recoverSchedules(ctx: RecoveryParts, schedules: ScheduleService, unfinished: readonly ScheduleRecord[]): Promise<RecoveryReport> {
  let interrupted = 0
  let resumed = 0
  for (const schedule of unfinished) {
    const outcome = await recoverSchedule(ctx, schedules, schedule)
    interrupted += outcome.interrupted
    resumed += outcome.resumed
  }
  return { schedules: unfinished.length, interrupted, resumed }
}

async function recoverSchedule(ctx: RecoveryParts, schedules: ScheduleService, schedule: ScheduleRecord): Promise<{ interrupted: number; resumed: number }> {
  const session = await ctx.store.sessions.get(schedule.sessionId)
  if (session === undefined) return { interrupted: 0, resumed: 0 }
  const aborted = await ctx.store.schedules.aborted(schedule.id)
  const earlier: ToolExecutionResult[] = []
  const remaining: ToolCall[] = []
  let interrupted = 0
  for (const row of await ctx.store.schedules.calls(schedule.id)) {
    if (row.result !== undefined) earlier.push(row.result)
    else if (row.status === 'running') {
      earlier.push(await interrupt(ctx, row))
      interrupted++
    } else {
      if (aborted) await resolvePendingAsAborted(ctx, row)
      remaining.push(toCall(row))
    }
  }
  // A schedule still open for streamed calls gets none after a restart: it closes, and its
  // record shows the plan its remaining calls run in, as a close would have.
  if (schedule.status === 'open') await closeRecovered(ctx, schedule.id, remaining)
  // An aborted turn's signal: its remaining calls end cancelled without starting, as they would have.
  const signal = aborted ? AbortSignal.abort(new ToolexecError('EXEC_ERR_CANCELLED', [], { context: { reason: TURN_ABORTED } })) : ctx.live.get(session.id).controller.signal
  const accepted = { id: schedule.id, session, turnId: schedule.turnId, calls: remaining, signal }
  schedules.resume(accepted, remaining, earlier)
  ctx.logger.info({ scheduleId: schedule.id, interrupted, resumed: remaining.length }, 'schedule.recovered')
  return { interrupted, resumed: remaining.length }
}

async function closeRecovered(ctx: RecoveryParts, scheduleId: string, remaining: readonly ToolCall[]): Promise<void> {
  const groups = ctx.executor.plan(pruneDependencies(remaining))
  await ctx.store.commit((unit) => {
    unit.schedules.setGroups(scheduleId, groups)
    unit.schedules.setStatus(scheduleId, 'queued', null)
  })
}

async function interrupt(ctx: RecoveryParts, row: CallRow): Promise<ToolExecutionResult> {
  const result = createErrorResult({
    callId: row.id,
    toolName: row.name,
    status: 'interrupted',
    stage: 'handler',
    errorClass: 'interrupted',
    message: INTERRUPTED_TEXT,
  })
  const event = { type: 'ToolCallResult' as const, sessionId: row.sessionId, callId: row.id, toolName: row.name, result }
  await ctx.journal.appendNow(event, stateChangeFor(event))
  return result
}

/** The approval a call of an aborted schedule still waited for resolves as the abort resolved it. */
async function resolvePendingAsAborted(ctx: RecoveryParts, row: CallRow): Promise<void> {
  const request = await ctx.store.approvals.lastForCall(row.sessionId, row.id)
  if (request?.status !== 'pending') return
  const event = {
    type: 'PermissionResolved' as const,
    sessionId: row.sessionId,
    permissionId: request.id,
    callId: row.id,
    toolName: row.name,
    decision: 'deny' as const,
    decidedBy: 'abort' as const,
    reason: 'Tool execution cancelled',
  }
  await ctx.journal.appendNow(event, stateChangeFor(event))
}

function toCall(row: CallRow): ToolCall {
  const call: ToolCall = { id: row.id, name: row.name, input: row.input }
  if (row.dependsOn !== undefined) call.dependsOn = row.dependsOn
  return call
}
