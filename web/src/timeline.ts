/**
 * @module A session's timeline, rebuilt from its events alone: schedules with their groups as
 * the scheduler made them and their turn's number (1, 2, 3 … in the order turns arrived),
 * one record per call, named from the start, the pending approvals. Events are applied by
 * sequence number, so a replay after a reconnection neither loses nor doubles one.
 */
import type { CallRecordStatus } from '../../src/contracts/api.js'
import type { DecidedBy, RiskLevel } from '../../src/contracts/events.js'
import type { ToolFlags } from '../../src/contracts/flags.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import type { SessionEvent, SessionEventType } from '../../src/contracts/session-events.js'

export type PermissionRequest = Extract<SessionEvent, { type: 'PermissionRequested' }>
type EventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>

export interface HookNote {
  readonly seq: number
  readonly text: string
}

export interface CallState {
  readonly id: string
  readonly scheduleId: string | undefined
  readonly toolName: string | undefined
  readonly input: unknown
  readonly status: CallRecordStatus
  readonly flags: ToolFlags | undefined
  readonly startedAt: string | undefined
  readonly progress: Record<string, unknown> | undefined
  readonly result: ToolExecutionResult | undefined
  readonly risk: RiskLevel | undefined
  readonly decision: string | undefined
  readonly hooks: readonly HookNote[]
}

export interface ScheduleState {
  readonly id: string
  readonly turnId: string
  /** 1 for the session's first turn, then 2, 3 …: a schedule of a turn seen before takes its number. */
  readonly turn: number
  readonly groups: readonly (readonly string[])[]
  readonly status: 'running' | 'completed' | 'stopped' | 'cancelled'
  readonly at: string
}

export interface Timeline {
  readonly lastSeq: number
  readonly schedules: readonly ScheduleState[]
  readonly calls: ReadonlyMap<string, CallState>
  /** By permission id, in the order they were asked. */
  readonly pending: ReadonlyMap<string, PermissionRequest>
}

export const EMPTY_TIMELINE: Timeline = { lastSeq: 0, schedules: [], calls: new Map(), pending: new Map() }

/** Every event type, for EventSource listeners: a type missing here fails to compile. */
const EVENT_TYPES: Record<SessionEventType, true> = {
  ScheduleAccepted: true,
  BatchStarted: true,
  BatchCompleted: true,
  ToolCallStarted: true,
  PermissionRequested: true,
  PermissionResolved: true,
  ModelNetworkStatus: true,
  ToolCallProgress: true,
  ToolCallResult: true,
  HookRunStarted: true,
  HookRunCompleted: true,
  HookRunBlocked: true,
  HookRunFailed: true,
  ScheduleCompleted: true,
  BackgroundTaskLost: true,
}
export const SESSION_EVENT_TYPES = Object.keys(EVENT_TYPES) as SessionEventType[]

function newCall(id: string, scheduleId: string | undefined): CallState {
  return {
    id,
    scheduleId,
    toolName: undefined,
    input: undefined,
    status: 'pending',
    flags: undefined,
    startedAt: undefined,
    progress: undefined,
    result: undefined,
    risk: undefined,
    decision: undefined,
    hooks: [],
  }
}

/** Applies events in order; one at or before `lastSeq` was applied already and is skipped. */
export function applyEvents(timeline: Timeline, events: readonly SessionEvent[]): Timeline {
  let lastSeq = timeline.lastSeq
  const fresh = events.filter((event) => {
    if (event.seq <= lastSeq) return false
    lastSeq = event.seq
    return true
  })
  if (fresh.length === 0) return timeline
  const draft = { schedules: [...timeline.schedules], calls: new Map(timeline.calls), pending: new Map(timeline.pending) }
  for (const event of fresh) apply(draft, event)
  return { lastSeq, ...draft }
}

interface Draft {
  schedules: ScheduleState[]
  calls: Map<string, CallState>
  pending: Map<string, PermissionRequest>
}

function updateCall(draft: Draft, id: string, change: Partial<CallState>, scheduleId?: string): void {
  const call = draft.calls.get(id) ?? newCall(id, scheduleId)
  draft.calls.set(id, { ...call, ...change })
}

function updateSchedule(draft: Draft, id: string | undefined, change: (schedule: ScheduleState) => ScheduleState): void {
  const index = draft.schedules.findIndex((schedule) => schedule.id === id)
  const schedule = draft.schedules[index]
  if (schedule !== undefined) draft.schedules[index] = change(schedule)
}

function turnNumber(schedules: readonly ScheduleState[], turnId: string): number {
  const seen = schedules.find((schedule) => schedule.turnId === turnId)
  return seen?.turn ?? (schedules.at(-1)?.turn ?? 0) + 1
}

function hookText(event: EventOf<'HookRunStarted' | 'HookRunCompleted' | 'HookRunBlocked' | 'HookRunFailed'>): string {
  const what = `${event.hookEvent} ${event.hook}`
  if (event.type === 'HookRunStarted') return `${what}: started`
  if (event.type === 'HookRunCompleted') return `${what}: done`
  if (event.type === 'HookRunBlocked') return `${what}: blocked (${event.reason})`
  return `${what}: failed (${event.error})`
}

const DECIDED_BY: Record<DecidedBy, string> = {
  client: 'a person',
  hook: 'a PermissionRequest hook',
  rule: 'a permission rule',
  broker: 'the server (a newer request replaced it)',
  timeout: 'the timeout',
  abort: 'the turn being aborted',
}

/** "allowed by Ann (session)": a person's decision names the key that made it. */
export function decisionText(event: EventOf<'PermissionResolved'>): string {
  const who = event.deciderName ?? DECIDED_BY[event.decidedBy] ?? event.decidedBy
  return `${event.decision === 'allow' ? 'allowed' : 'denied'} by ${who}${event.scope === undefined ? '' : ` (${event.scope})`}`
}

function apply(draft: Draft, event: SessionEvent): void {
  switch (event.type) {
    case 'ScheduleAccepted':
      draft.schedules.push({ id: event.scheduleId, turnId: event.turnId, turn: turnNumber(draft.schedules, event.turnId), groups: event.groups, status: 'running', at: event.at })
      for (const id of event.groups.flat()) if (!draft.calls.has(id)) draft.calls.set(id, newCall(id, event.scheduleId))
      for (const call of event.calls ?? []) updateCall(draft, call.id, { toolName: draft.calls.get(call.id)?.toolName ?? call.name }, event.scheduleId)
      return
    case 'BatchStarted':
      // An open schedule grows while it runs: its later batches are known from here.
      updateSchedule(draft, event.scheduleId, (schedule) => {
        if (schedule.groups[event.batchIndex] !== undefined) return schedule
        const groups = [...schedule.groups]
        groups[event.batchIndex] = event.callIds
        return { ...schedule, groups }
      })
      for (const id of event.callIds) if (!draft.calls.has(id)) draft.calls.set(id, newCall(id, event.scheduleId))
      return
    case 'PermissionRequested':
      draft.pending.set(event.permissionId, event)
      updateCall(draft, event.callId, { status: 'awaiting_permission', toolName: event.toolName, input: event.input, risk: event.riskLevel })
      return
    case 'PermissionResolved': {
      if (event.permissionId !== undefined) draft.pending.delete(event.permissionId)
      const call = draft.calls.get(event.callId)
      const status = call?.status === 'awaiting_permission' ? 'pending' : (call?.status ?? 'pending')
      updateCall(draft, event.callId, { status, toolName: event.toolName, decision: decisionText(event) })
      return
    }
    case 'ToolCallStarted':
      updateCall(draft, event.callId, { status: 'running', toolName: event.toolName, input: event.input, flags: event.flags, startedAt: event.at })
      return
    case 'ToolCallProgress':
      updateCall(draft, event.callId, { progress: event.progress, toolName: event.toolName })
      return
    case 'ToolCallResult':
      updateCall(draft, event.callId, { status: event.result.status, toolName: event.toolName, result: event.result })
      return
    case 'HookRunStarted':
    case 'HookRunCompleted':
    case 'HookRunBlocked':
    case 'HookRunFailed': {
      const hooks = draft.calls.get(event.callId)?.hooks ?? []
      updateCall(draft, event.callId, { toolName: event.toolName, hooks: [...hooks, { seq: event.seq, text: hookText(event) }] })
      return
    }
    case 'ScheduleCompleted':
      updateSchedule(draft, event.scheduleId, (schedule) => ({ ...schedule, status: event.status }))
      return
    case 'BatchCompleted':
    case 'ModelNetworkStatus':
    case 'BackgroundTaskLost':
      return
  }
}
