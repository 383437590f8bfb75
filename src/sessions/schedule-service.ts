/**
 * @module Schedules: accepted and stored with their ScheduleAccepted event in one
 * transaction, then run one after another per session. An open schedule takes calls as
 * the model streams them (R11): eligible ones start at once, the rest run at close.
 */
import { MAX_SCHEDULE_CALLS, type CreateScheduleBody, type ScheduleAcceptedReply, type ScheduleCallInput, type ScheduleReply } from '../contracts/api.js'
import { ToolexecError } from '../contracts/errors.js'
import type { ToolCall } from '../contracts/tool-call.js'
import { isStorageFull, isStorageUnavailable, StoreConflictError, type NewCall, type SessionRecord, type Store } from '../contracts/store.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import type { Logger } from 'pino'
import type { Executor } from '../executor/executor.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'
import type { Turns } from './turns.js'
import type { SessionService } from './session-service.js'
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
  /** Streamed calls whose rows are being written; a close waits for them. */
  readonly inserting: Set<Promise<unknown>>
  readonly closed: Promise<void>
  close(): void
}

/** What the schedule service reads, writes and runs. */
export interface ScheduleParts {
  readonly store: Pick<Store, 'sessions' | 'schedules' | 'commit'>
  readonly journal: EventJournal
  readonly executor: Executor
  readonly turns: Turns
  readonly live: LiveSessions
  readonly sessions: SessionService
  readonly logger: Logger
  /** Bounds on schedules waiting to start (defaults: DEFAULT_BACKLOG_BOUNDS). */
  readonly backlog?: BacklogBounds | undefined
  /** Calls `wake` when another server commits events of the session (a cluster); its result stops. */
  readonly followSession?: ((sessionId: string, wake: () => void) => () => void) | undefined
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
   * Accepts a schedule: it is stored with its ScheduleAccepted event in a unit of its own, and
   * runs once that is committed. A call id already used in the session is found by the primary
   * key, by that commit, and fails only this request.
   */
  /** `scheduledBy`: the principal's id, recorded with each call (four eyes tells it from the decider's). */
  async submit(body: CreateScheduleBody, scheduledBy: string | null = null): Promise<ScheduleAcceptedReply> {
    const calls = scheduleCallsOf(body).map(toToolCall)
    const open = body.open === true
    const proposed = await this.#sessions.forSchedule(body.sessionId, body.createSession)
    this.#assertDistinctCallIds(proposed.session.id, calls)
    // A closed schedule is planned now (cycles are a 400); an open one is planned at close,
    // so its calls may depend only on calls before them.
    this.#assertDependencies(calls, 0, !open)
    const groups = open ? [] : this.#parts.executor.plan(calls)
    const scheduleId = `sch_${timeOrderedUuid()}`
    const turnId = body.turnId ?? `turn_${crypto.randomUUID()}`
    // Last of the checks and before anything is written: a refused schedule leaves no trace.
    const started = this.#backlog.admit(proposed.session.id)
    let session: SessionRecord
    try {
      session = await this.#record({ id: scheduleId, turnId, status: open ? 'open' : 'queued', groups, calls, scheduledBy }, proposed, body)
    } catch (error) {
      started()
      throw error
    }
    const schedule: AcceptedSchedule = { id: scheduleId, session, turnId, calls, signal: this.#parts.live.get(session.id).controller.signal }
    if (open) this.#startOpen(schedule, started)
    else this.#enqueue(schedule, started, () => runAccepted(this.#parts, schedule, calls))
    return this.#acceptedReply(schedule, open ? 'open' : 'queued', groups, calls)
  }

  /**
   * Writes the schedule, its calls and its ScheduleAccepted event (with the session when it is
   * new). When the database refuses a key, the refusal is told apart by reading what took it:
   * another request created the session since it was looked up (written again, once, into
   * that one), the session was deleted, or a call id is taken.
   */
  async #record(schedule: NewScheduleOf, proposed: { readonly session: SessionRecord; readonly isNew: boolean }, body: CreateScheduleBody): Promise<SessionRecord> {
    for (let attempt = 1; ; attempt++) {
      const { session, isNew } = proposed
      const calls = schedule.calls.map((call) => ({ id: call.id, name: call.name }))
      const event = { type: 'ScheduleAccepted' as const, sessionId: session.id, scheduleId: schedule.id, turnId: schedule.turnId, groups: schedule.groups, calls }
      try {
        await this.#parts.journal.appendGuarded(event, (unit, at) => {
          if (isNew) unit.sessions.insert(session)
          unit.schedules.insert({ id: schedule.id, sessionId: session.id, turnId: schedule.turnId, status: schedule.status, groups: schedule.groups, createdAt: at })
          schedule.calls.forEach((call, position) => unit.schedules.insertCall(newCall(call, session.id, schedule.id, position, schedule.scheduledBy)))
        })
        return session
      } catch (error) {
        if (error instanceof ToolexecError || isStorageFull(error) || isStorageUnavailable(error)) throw error
        const now = await this.#sessions.forSchedule(session.id, body.createSession)
        if (now.isNew !== isNew && attempt === 1) {
          proposed = now
          continue
        }
        await this.#assertCallIdsFree(session.id, schedule.calls)
        throw error
      }
    }
  }

  async #assertCallIdsFree(sessionId: string, calls: readonly ToolCall[]): Promise<void> {
    for (const call of calls) {
      if ((await this.#parts.store.schedules.call(sessionId, call.id)) !== undefined) throw callIdTaken(call.id, sessionId)
    }
  }

  /** R11: a streamed call starts at once when it is eligible and no call before it waits; else it waits for close. */
  async addCall(scheduleId: string, input: ScheduleCallInput, scheduledBy: string | null = null): Promise<ScheduleAcceptedReply> {
    const open = this.#open.get(scheduleId)
    if (open === undefined) throw await this.#notOpen(scheduleId)
    const call = toToolCall(input)
    const { schedule } = open
    if (schedule.calls.length >= MAX_SCHEDULE_CALLS) throw new ToolexecError('API_ERR_VALIDATION', [`A schedule holds at most ${MAX_SCHEDULE_CALLS} calls`])
    this.#assertDependencies([...schedule.calls, call], schedule.calls.length, false)
    // R5 keeps the model's order: once one call is held for close, every later call is too
    // (a Read streamed after a held Edit of the same file must see the edit).
    const followsHeldCall = schedule.calls.some((earlier) => !open.dispatched.has(earlier.id))
    // Its place is taken before the write, so that calls streamed meanwhile get the next ones.
    const position = schedule.calls.length
    schedule.calls.push(call)
    const inserted = this.#insertCall(open, newCall(call, schedule.session.id, scheduleId, position, scheduledBy))
    try {
      await inserted
    } catch (error) {
      schedule.calls.splice(schedule.calls.indexOf(call), 1)
      throw error
    }
    const turn = this.#parts.turns.of(schedule.session, scheduleId, schedule.turnId, schedule.signal)
    const eligible = !followsHeldCall && call.dependsOn === undefined && (await this.#parts.executor.canDispatchEarly(call, turn))
    // A close during the check has planned this call with the rest: it runs there, once.
    if (eligible && this.#open.get(scheduleId) === open) open.dispatched.set(call.id, this.#parts.executor.execute(call, turn))
    return this.#acceptedReply(schedule, 'open', [], schedule.calls, open.dispatched)
  }

  /** Inserts a streamed call; an id the session already used is the client's error (409), told by the primary key. */
  #insertCall(open: OpenSchedule, call: NewCall): Promise<void> {
    const inserted = this.#parts.store
      .commit((unit) => unit.schedules.insertCall(call))
      .catch((error: unknown) => {
        throw error instanceof StoreConflictError ? callIdTaken(call.id, call.sessionId) : error
      })
    const tracked = inserted.catch(() => {}).finally(() => open.inserting.delete(tracked))
    open.inserting.add(tracked)
    return inserted
  }

  async close(scheduleId: string): Promise<ScheduleAcceptedReply> {
    const open = this.#open.get(scheduleId)
    if (open === undefined) throw await this.#notOpen(scheduleId)
    this.#open.delete(scheduleId)
    // A call streamed just before the close is planned with the rest once its row is written.
    await Promise.all(open.inserting)
    const { schedule } = open
    const rest = schedule.calls.filter((call) => !open.dispatched.has(call.id))
    const groups = this.#parts.executor.plan(pruneDependencies(rest))
    // An abort closes open schedules: on a full disk too, with the record written when space
    // returns. Queued before the schedule may start, so it commits first.
    const recorded = this.#parts.journal.writeOrKeep(schedule.session.id, (unit) => {
      unit.schedules.setGroups(scheduleId, groups)
      unit.schedules.setStatus(scheduleId, 'queued', null)
    })
    open.close()
    await recorded
    return this.#acceptedReply(schedule, 'queued', groups, schedule.calls, open.dispatched)
  }

  /**
   * R23 for the session's turn (see SessionService.abort). No more calls will come to its open
   * schedules, and its later schedules wait behind them: they close, and end cancelled.
   */
  async abortTurn(sessionId: string): Promise<{ sessionId: string; aborted: boolean }> {
    const aborted = await this.#sessions.abort(sessionId)
    for (const [scheduleId, open] of [...this.#open]) {
      if (open.schedule.session.id === sessionId) await this.close(scheduleId)
    }
    return aborted
  }

  async view(scheduleId: string): Promise<ScheduleReply> {
    const schedule = await this.#parts.store.schedules.get(scheduleId)
    if (schedule === undefined) throw new ToolexecError('API_ERR_SCHEDULE_NOT_FOUND', [scheduleId])
    return scheduleView(schedule, await this.#parts.store.schedules.calls(scheduleId))
  }

  /** Holds until the schedule ends or `seconds` pass, whichever is first. */
  async waitFor(scheduleId: string, seconds: number): Promise<ScheduleReply> {
    if (seconds <= 0) return this.view(scheduleId)
    const wait = this.waiters.wait(scheduleId, seconds * 1000)
    let unfollow = (): void => {}
    try {
      const current = await this.view(scheduleId)
      if (isFinished(current.status)) return current
      // Run by another server, its end is told by that server's commits, each read here.
      const ifEnded = (): void =>
        void this.view(scheduleId).then(
          (view) => (isFinished(view.status) ? wait.stop() : undefined),
          () => wait.stop(),
        )
      if (this.#parts.followSession !== undefined) {
        unfollow = this.#parts.followSession(current.sessionId, ifEnded)
        // Ended between the read above and following: no wake-up comes for it any more.
        ifEnded()
      }
      await wait.ended
    } finally {
      unfollow()
      wait.stop()
    }
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
    const open: OpenSchedule = { schedule, dispatched: new Map(), inserting: new Set(), closed, close }
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

  /** Why a schedule that is not open takes no call and no close: it does not exist, or has its status. */
  async #notOpen(scheduleId: string): Promise<ToolexecError> {
    const stored = await this.#parts.store.schedules.get(scheduleId)
    if (stored === undefined) return new ToolexecError('API_ERR_SCHEDULE_NOT_FOUND', [scheduleId])
    return new ToolexecError('API_ERR_SCHEDULE_NOT_OPEN', [scheduleId, stored.status])
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

interface NewScheduleOf {
  readonly id: string
  readonly turnId: string
  readonly status: 'open' | 'queued'
  readonly groups: string[][]
  readonly scheduledBy: string | null
  readonly calls: readonly ToolCall[]
}

function newCall(call: ToolCall, sessionId: string, scheduleId: string, position: number, scheduledBy: string | null): NewCall {
  return { ...call, sessionId, scheduleId, position, scheduledBy }
}

function callIdTaken(callId: string, sessionId: string): ToolexecError {
  return new ToolexecError('API_ERR_CALL_ID_TAKEN', [callId, sessionId])
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
