/**
 * @module Schedules: accepted and stored with their ScheduleAccepted event in one
 * transaction, then run one after another per session. An open schedule takes calls as
 * the model streams them (R11): eligible ones start at once, the rest run at close.
 */
import { MAX_SCHEDULE_CALLS, type CreateScheduleBody, type ScheduleAcceptedReply, type ScheduleCallInput, type ScheduleReply } from '../contracts/api.js'
import { ToolexecError } from '../contracts/errors.js'
import type { ToolCall } from '../contracts/tool-call.js'
import { StoreConflictError, type NewCall, type SessionRecord, type Store } from '../contracts/store.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import type { Logger } from 'pino'
import type { Executor } from '../executor/executor.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'
import type { Turns } from './turns.js'
import { unknownSessionOfSchedule, type SessionService } from './session-service.js'
import { scheduleView } from './views.js'
import { scheduleCallsOf } from '../model-formats/schedule-calls.js'
import { timeOrderedUuid } from './time-ordered-id.js'
import { ScheduleWaiters } from './schedule-waiters.js'
import { isShutdownFailure } from './event-journal.js'
import { pruneDependencies, runAccepted, type AcceptedSchedule } from './schedule-runner.js'
import { ScheduleBacklog, type BacklogBounds, type BacklogRelease } from './schedule-backlog.js'

interface OpenSchedule {
  readonly schedule: AcceptedSchedule
  readonly dispatched: Map<string, Promise<ToolExecutionResult>>
  readonly closed: Promise<void>
  close(): void
}

/** What the schedule service reads, writes and runs. */
export interface ScheduleParts {
  readonly store: Store
  readonly journal: EventJournal
  readonly executor: Executor
  readonly turns: Turns
  readonly live: LiveSessions
  readonly sessions: SessionService
  readonly logger: Logger
  /** Bounds on schedules waiting to start (defaults: DEFAULT_BACKLOG_BOUNDS). */
  readonly backlog?: BacklogBounds | undefined
}

export class ScheduleService {
  readonly #parts: ScheduleParts
  readonly #sessions: SessionService
  readonly #open = new Map<string, OpenSchedule>()
  readonly #backlog: ScheduleBacklog
  readonly waiters = new ScheduleWaiters()

  constructor(parts: ScheduleParts) {
    this.#parts = parts
    this.#sessions = parts.sessions
    this.#backlog = new ScheduleBacklog(parts.backlog)
  }

  /**
   * Accepts a schedule: it is stored with its ScheduleAccepted event in the next shared
   * commit, and runs once that commit is done. A call id already used in the session is
   * found by the primary key, inside that commit, and fails only this request.
   */
  async submit(body: CreateScheduleBody): Promise<ScheduleAcceptedReply> {
    const calls = scheduleCallsOf(body).map(toToolCall)
    const open = body.open === true
    const proposed = this.#sessions.forSchedule(body.sessionId, body.createSession)
    this.#assertDistinctCallIds(proposed.id, calls)
    // A closed schedule is planned now (cycles are a 400); an open one is planned at close,
    // so its calls may depend only on calls before them.
    this.#assertDependencies(calls, 0, !open)
    const groups = open ? [] : this.#parts.executor.plan(calls)
    const scheduleId = `sch_${timeOrderedUuid()}`
    const turnId = body.turnId ?? `turn_${crypto.randomUUID()}`
    let session = proposed
    // Last of the checks and before anything is written: a refused schedule leaves no trace.
    const started = this.#backlog.admit(proposed.id)
    try {
      await this.#parts.journal.appendGuarded({ type: 'ScheduleAccepted', sessionId: proposed.id, scheduleId, turnId, groups }, (tx, at) => {
        // Another request of this tick may have created or deleted the session since it was looked up.
        const stored = tx.getSession(proposed.id)
        if (stored === undefined && body.createSession === undefined) throw unknownSessionOfSchedule(proposed.id)
        if (stored === undefined) tx.insertSession(proposed)
        else if (body.createSession !== undefined) this.#sessions.assertSame(stored, body.createSession)
        session = stored ?? proposed
        tx.insertSchedule({ id: scheduleId, sessionId: session.id, turnId, status: open ? 'open' : 'queued', groups, createdAt: at })
        calls.forEach((call, position) => insertNewCall(tx, { ...call, sessionId: session.id, scheduleId, position }))
      })
    } catch (error) {
      started()
      throw error
    }
    const schedule: AcceptedSchedule = { id: scheduleId, session, turnId, calls, signal: this.#parts.live.get(session.id).controller.signal }
    if (open) this.#startOpen(schedule, started)
    else this.#enqueue(schedule, started, () => runAccepted(this.#parts, schedule, calls))
    return this.#acceptedReply(schedule, open ? 'open' : 'queued', groups, calls)
  }

  /** R11: a streamed call starts at once when it is eligible and no call before it waits; else it waits for close. */
  async addCall(scheduleId: string, input: ScheduleCallInput): Promise<ScheduleAcceptedReply> {
    const open = this.#requireOpen(scheduleId)
    const call = toToolCall(input)
    const { schedule } = open
    if (schedule.calls.length >= MAX_SCHEDULE_CALLS) throw new ToolexecError('API_ERR_VALIDATION', [`A schedule holds at most ${MAX_SCHEDULE_CALLS} calls`])
    this.#assertDependencies([...schedule.calls, call], schedule.calls.length, false)
    // R5 keeps the model's order: once one call is held for close, every later call is too
    // (a Read streamed after a held Edit of the same file must see the edit).
    const followsHeldCall = schedule.calls.some((earlier) => !open.dispatched.has(earlier.id))
    insertNewCall(this.#parts.store, { ...call, sessionId: schedule.session.id, scheduleId, position: schedule.calls.length })
    schedule.calls.push(call)
    const turn = this.#parts.turns.of(schedule.session, scheduleId, schedule.turnId, schedule.signal)
    const eligible = !followsHeldCall && call.dependsOn === undefined && (await this.#parts.executor.canDispatchEarly(call, turn))
    // A close during the check has planned this call with the rest: it runs there, once.
    if (eligible && this.#open.get(scheduleId) === open) open.dispatched.set(call.id, this.#parts.executor.execute(call, turn))
    return this.#acceptedReply(schedule, 'open', [], schedule.calls, open.dispatched)
  }

  close(scheduleId: string): ScheduleAcceptedReply {
    const open = this.#requireOpen(scheduleId)
    const { schedule } = open
    const rest = schedule.calls.filter((call) => !open.dispatched.has(call.id))
    const groups = this.#parts.executor.plan(pruneDependencies(rest))
    // An abort closes open schedules: on a full disk too, with the record written when space returns.
    this.#parts.journal.writeOrKeep((store) => {
      store.setScheduleGroups(scheduleId, groups)
      store.setScheduleStatus(scheduleId, 'queued', null)
    })
    this.#open.delete(scheduleId)
    open.close()
    return this.#acceptedReply(schedule, 'queued', groups, schedule.calls, open.dispatched)
  }

  /**
   * R23 for the session's turn (see SessionService.abort). No more calls will come to its open
   * schedules, and its later schedules wait behind them: they close, and end cancelled.
   */
  abortTurn(sessionId: string): { sessionId: string; aborted: boolean } {
    const aborted = this.#sessions.abort(sessionId)
    for (const [scheduleId, open] of [...this.#open]) {
      if (open.schedule.session.id === sessionId) this.close(scheduleId)
    }
    return aborted
  }

  view(scheduleId: string): ScheduleReply {
    const schedule = this.#parts.store.getSchedule(scheduleId)
    if (schedule === undefined) throw new ToolexecError('API_ERR_SCHEDULE_NOT_FOUND', [scheduleId])
    return scheduleView(schedule, this.#parts.store.callsOfSchedule(scheduleId))
  }

  /** Holds until the schedule ends or `seconds` pass, whichever is first. */
  async waitFor(scheduleId: string, seconds: number): Promise<ScheduleReply> {
    const current = this.view(scheduleId)
    if (isFinished(current.status) || seconds <= 0) return current
    await this.waiters.wait(scheduleId, seconds * 1000)
    return this.view(scheduleId)
  }

  /** Used by recovery: runs stored, unfinished calls of an accepted schedule. */
  resume(schedule: AcceptedSchedule, calls: readonly ToolCall[], earlier: readonly ToolExecutionResult[]): void {
    // Accepted before the restart: it counts towards the bounds but is never refused.
    this.#enqueue(schedule, this.#backlog.take(schedule.session.id), () => runAccepted(this.#parts, schedule, calls, earlier))
  }

  #startOpen(schedule: AcceptedSchedule, started: BacklogRelease): void {
    let close: () => void = () => {}
    const closed = new Promise<void>((resolve) => {
      close = resolve
    })
    // Once its turn is aborted (a stop included), no call will come: the wait ends.
    const signal = schedule.signal
    signal.addEventListener('abort', close, { once: true })
    void closed.then(() => signal.removeEventListener('abort', close))
    const open: OpenSchedule = { schedule, dispatched: new Map(), closed, close }
    this.#open.set(schedule.id, open)
    this.#enqueue(schedule, started, async () => {
      await closed
      const early = await Promise.all(open.dispatched.values())
      const rest = schedule.calls.filter((call) => !open.dispatched.has(call.id))
      await runAccepted(this.#parts, schedule, rest, early)
    })
  }

  /** Queues the schedule behind the session's others; `started` gives back its place in the backlog when it starts. */
  #enqueue(schedule: AcceptedSchedule, started: BacklogRelease, task: () => Promise<void>): void {
    const live = this.#parts.live.get(schedule.session.id)
    void live
      .enqueue(async () => {
        // While the database is away the schedule stays queued, and starts, in order, once it is back.
        await this.#parts.journal.whenWritable()
        started()
        live.running++
        try {
          await task()
        } finally {
          live.running--
        }
      })
      .catch((error: unknown) => {
        // Stopped by a shutdown: it goes on at the next start, like after a crash.
        const level = isShutdownFailure(error) ? 'debug' : 'error'
        this.#parts.logger[level]({ err: error, scheduleId: schedule.id }, 'schedule.failed')
      })
      .finally(() => {
        started()
        this.waiters.release(schedule.id)
      })
  }

  #requireOpen(scheduleId: string): OpenSchedule {
    const open = this.#open.get(scheduleId)
    if (open !== undefined) return open
    const stored = this.#parts.store.getSchedule(scheduleId)
    if (stored === undefined) throw new ToolexecError('API_ERR_SCHEDULE_NOT_FOUND', [scheduleId])
    throw new ToolexecError('API_ERR_SCHEDULE_NOT_OPEN', [scheduleId, stored.status])
  }

  #assertDistinctCallIds(sessionId: string, calls: readonly ToolCall[]): void {
    const seen = new Set<string>()
    for (const call of calls) {
      if (seen.has(call.id)) throw new ToolexecError('API_ERR_CALL_ID_TAKEN', [call.id, sessionId])
      seen.add(call.id)
    }
  }

  /** Dependencies name calls of the same schedule; with `allowLater` false, only earlier ones. */
  #assertDependencies(calls: readonly ToolCall[], from: number, allowLater: boolean): void {
    const earlier = new Set(calls.slice(0, from).map((call) => call.id))
    for (const call of calls.slice(from)) {
      for (const dep of call.dependsOn ?? []) {
        const known = earlier.has(dep) || (allowLater && calls.some((other) => other.id === dep))
        if (!known) throw new ToolexecError('API_ERR_BAD_DEPENDENCY', [call.id, dep])
      }
      earlier.add(call.id)
    }
  }

  #acceptedReply(
    schedule: AcceptedSchedule,
    status: ScheduleAcceptedReply['status'],
    groups: string[][],
    calls: readonly ToolCall[],
    dispatched?: ReadonlyMap<string, unknown>,
  ): ScheduleAcceptedReply {
    return {
      scheduleId: schedule.id,
      sessionId: schedule.session.id,
      turnId: schedule.turnId,
      status,
      groups,
      calls: calls.map((call) => ({
        id: call.id,
        name: call.name,
        flags: this.#parts.executor.flagsOf(call) ?? null,
        ...(dispatched === undefined ? null : { dispatched: dispatched.has(call.id) }),
      })),
    }
  }
}

/** Inserts a call; an id the session already used is the client's error (409), told by the primary key. */
function insertNewCall(store: Store, call: NewCall): void {
  try {
    store.insertCall(call)
  } catch (error) {
    if (error instanceof StoreConflictError) throw new ToolexecError('API_ERR_CALL_ID_TAKEN', [call.id, call.sessionId])
    throw error
  }
}

function toToolCall(input: ScheduleCallInput): ToolCall {
  const call: ToolCall = { id: input.id, name: input.name, input: input.input ?? null }
  if (input.dependsOn !== undefined && input.dependsOn.length > 0) call.dependsOn = input.dependsOn
  return call
}

export function isFinished(status: string): boolean {
  return status === 'completed' || status === 'stopped' || status === 'cancelled'
}

export type { SessionRecord }
