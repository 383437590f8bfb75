/**
 * @module The policy of every executor event type in one table: what it changes in the store
 * (the journal runs the change and writes the event in one transaction, so the records and
 * the stream never disagree), whether the executor waits for its commit, whether it is
 * refused on a full disk or held while the server stops, and whether its live frame may wait
 * for company. A new event type does not compile until its row is written.
 */
import type { EventOf, ExecutorEvent, ExecutorEventType } from '../contracts/events.js'
import { recordAuditedDecision, recordDecision } from './event-projection.js'
import type { StateChange } from './state-change.js'

export interface EventPolicy<T extends ExecutorEventType = ExecutorEventType> {
  /**
   * False: the executor does not wait for the commit. The journal writes in order, so the
   * event is durable before anything that follows it is (a call's start, a permission
   * request, the schedule's end), and shares that later commit instead of paying one.
   */
  readonly awaited: boolean
  /** On a full disk it is refused, not kept for later: it would begin something new. */
  readonly refusedWhenFull: boolean
  /**
   * While the database cannot be reached it is kept, and whoever awaits it waits until it is
   * written: what it begins (a call's start, an approval asked) must be on record first. A
   * change refused on a full disk that does not wait is dropped then (progress).
   */
  readonly waitsForDatabase: boolean
  /** Held, never written, once the server starts to stop: a call must not start then. */
  readonly heldWhileStopping: boolean
  /** Its live SSE frame may wait COALESCE_MS for company (progress); else it is sent at once. */
  readonly frameMayWait: boolean
  /** What it changes in the store; absent when it changes nothing. */
  change?(event: EventOf<T>): StateChange
}

type EventPolicyTable = { readonly [T in ExecutorEventType]: EventPolicy<T> }

type Flags = Omit<EventPolicy, 'change'>

const NOTICE: Flags = { awaited: true, refusedWhenFull: false, waitsForDatabase: false, heldWhileStopping: false, frameMayWait: true }
const SETTLED: Flags = { awaited: true, refusedWhenFull: false, waitsForDatabase: false, heldWhileStopping: false, frameMayWait: false }

export const EVENT_POLICY = {
  ScheduleAccepted: NOTICE,
  BatchStarted: { ...NOTICE, awaited: false },
  BatchCompleted: { ...NOTICE, awaited: false },
  ToolCallStarted: {
    awaited: true,
    refusedWhenFull: true,
    waitsForDatabase: true,
    heldWhileStopping: true,
    frameMayWait: true,
    change: (event) => (unit, at) => unit.schedules.markCallRunning(event.sessionId, event.callId, event.input, event.flags, at),
  },
  PermissionRequested: {
    ...SETTLED,
    refusedWhenFull: true,
    waitsForDatabase: true,
    change: (event) => (unit, at) => {
      // A request re-opened after a restart keeps its row (same id): the insert leaves it as it is.
      unit.approvals.insert({
        id: event.permissionId,
        sessionId: event.sessionId,
        callId: event.callId,
        toolName: event.toolName,
        input: event.input,
        preview: event.preview,
        riskLevel: event.riskLevel,
        reason: event.reason,
        suggestedRule: event.suggestedRule ?? null,
        createdAt: at,
      })
      unit.schedules.setCallStatus(event.sessionId, event.callId, 'awaiting_permission')
    },
  },
  PermissionResolved: {
    ...SETTLED,
    change: (event) => (unit, at) => {
      if (event.permissionId !== undefined) {
        const decision = {
          status: event.decision,
          decidedBy: event.decidedBy,
          message: event.reason ?? null,
          scope: event.scope ?? null,
          rules: event.rules,
          deciderId: event.deciderId ?? null,
          deciderName: event.deciderName ?? null,
        }
        // A person's answer was recorded with its audit entry before the call heard it (session-broker.ts).
        if (event.decidedBy === 'client') recordDecision(unit, event.permissionId, decision, at)
        else recordAuditedDecision(unit, { ...event, permissionId: event.permissionId }, decision, at, undefined)
      }
      if (event.decision === 'allow') unit.schedules.setCallStatus(event.sessionId, event.callId, 'pending')
    },
  },
  ModelNetworkStatus: NOTICE,
  ToolCallProgress: { ...NOTICE, refusedWhenFull: true },
  ToolCallResult: { ...SETTLED, awaited: false, change: (event) => (unit, at) => unit.schedules.completeCall(event.sessionId, event.result, at) },
  HookRunStarted: NOTICE,
  HookRunCompleted: NOTICE,
  HookRunBlocked: SETTLED,
  HookRunFailed: SETTLED,
  ScheduleCompleted: { ...SETTLED, change: (event) => (unit, at) => unit.schedules.setStatus(event.scheduleId, event.status, at) },
  BackgroundTaskLost: { ...SETTLED, change: (event) => (unit, at) => unit.tasks.markLost(event.sessionId, event.taskId, at) },
} as const satisfies EventPolicyTable

/** The policy of this event's type. */
export function eventPolicy(type: ExecutorEventType): EventPolicy {
  // Each row is typed for its own event; read by a type of the union, the row takes any event of it.
  return (EVENT_POLICY as EventPolicyTable)[type] as EventPolicy
}

/** What the event changes in the store, or undefined. */
export function stateChangeFor(event: ExecutorEvent): StateChange | undefined {
  return eventPolicy(event.type).change?.(event)
}

/** Whether a stored event's live frame may wait for company; a type not in the table is sent at once. */
export function frameMayWait(type: string): boolean {
  return Object.hasOwn(EVENT_POLICY, type) && eventPolicy(type as ExecutorEventType).frameMayWait
}
