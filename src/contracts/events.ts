/**
 * @module The executor's event union (R37, R40, A7). Every event names its session; the host
 * that stores and streams them adds the sequence number and the time.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ToolFlagsSchema } from './flags.js'
import { ToolExecutionResultSchema } from './result.js'

const Str = Type.String()
const base = { sessionId: Str }

export const DecidedBySchema = Type.Union(
  [
    Type.Literal('client'),
    Type.Literal('hook'),
    Type.Literal('rule'),
    Type.Literal('broker'),
    Type.Literal('timeout'),
    Type.Literal('abort'),
  ],
  { $id: 'DecidedBy' },
)
export type DecidedBy = Static<typeof DecidedBySchema>

export const RiskLevelSchema = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])
export type RiskLevel = Static<typeof RiskLevelSchema>

export const ScheduleAcceptedEventSchema = Type.Object({
  type: Type.Literal('ScheduleAccepted'),
  ...base,
  scheduleId: Str,
  turnId: Str,
  groups: Type.Array(Type.Array(Str)),
})
export const BatchStartedEventSchema = Type.Object({
  type: Type.Literal('BatchStarted'),
  ...base,
  scheduleId: Type.Optional(Str),
  batchIndex: Type.Integer(),
  callIds: Type.Array(Str),
})
export const BatchCompletedEventSchema = Type.Object({
  type: Type.Literal('BatchCompleted'),
  ...base,
  scheduleId: Type.Optional(Str),
  batchIndex: Type.Integer(),
  callIds: Type.Array(Str),
  stopTurn: Type.Boolean(),
})
export const ToolCallStartedEventSchema = Type.Object({
  type: Type.Literal('ToolCallStarted'),
  ...base,
  callId: Str,
  toolName: Str,
  input: Type.Unknown(),
  flags: ToolFlagsSchema,
})
export const PermissionRequestedEventSchema = Type.Object({
  type: Type.Literal('PermissionRequested'),
  ...base,
  permissionId: Str,
  callId: Str,
  toolName: Str,
  input: Type.Unknown(),
  preview: Type.Optional(Type.Unknown()),
  riskLevel: RiskLevelSchema,
  reason: Str,
  suggestedRule: Type.Optional(Str),
})
export const PermissionResolvedEventSchema = Type.Object({
  type: Type.Literal('PermissionResolved'),
  ...base,
  permissionId: Type.Optional(Str),
  callId: Str,
  toolName: Str,
  decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  decidedBy: DecidedBySchema,
  reason: Type.Optional(Str),
  ruleId: Type.Optional(Str),
  scope: Type.Optional(Str),
})
export const ModelNetworkStatusEventSchema = Type.Object({
  type: Type.Literal('ModelNetworkStatus'),
  ...base,
  callId: Str,
  status: Type.Union([
    Type.Literal('model_request_queued'),
    Type.Literal('model_request_admitted'),
    Type.Literal('model_request_completed'),
    Type.Literal('model_request_failed'),
  ]),
  queuedMs: Type.Optional(Type.Number()),
})
export const ToolCallProgressEventSchema = Type.Object({
  type: Type.Literal('ToolCallProgress'),
  ...base,
  callId: Str,
  toolName: Str,
  progress: Type.Record(Str, Type.Unknown()),
})
export const ToolCallResultEventSchema = Type.Object({
  type: Type.Literal('ToolCallResult'),
  ...base,
  callId: Str,
  toolName: Str,
  result: ToolExecutionResultSchema,
})
const hookRunFields = {
  ...base,
  callId: Str,
  toolName: Str,
  hookEvent: Str,
  hook: Str,
}
export const HookRunStartedEventSchema = Type.Object({ type: Type.Literal('HookRunStarted'), ...hookRunFields })
export const HookRunCompletedEventSchema = Type.Object({
  type: Type.Literal('HookRunCompleted'),
  ...hookRunFields,
  output: Type.Optional(Type.Unknown()),
})
export const HookRunBlockedEventSchema = Type.Object({
  type: Type.Literal('HookRunBlocked'),
  ...hookRunFields,
  reason: Str,
})
export const HookRunFailedEventSchema = Type.Object({
  type: Type.Literal('HookRunFailed'),
  ...hookRunFields,
  error: Str,
})
export const ScheduleCompletedEventSchema = Type.Object({
  type: Type.Literal('ScheduleCompleted'),
  ...base,
  scheduleId: Str,
  status: Type.Union([Type.Literal('completed'), Type.Literal('stopped'), Type.Literal('cancelled')]),
})

export const ExecutorEventSchema = Type.Union(
  [
    ScheduleAcceptedEventSchema,
    BatchStartedEventSchema,
    BatchCompletedEventSchema,
    ToolCallStartedEventSchema,
    PermissionRequestedEventSchema,
    PermissionResolvedEventSchema,
    ModelNetworkStatusEventSchema,
    ToolCallProgressEventSchema,
    ToolCallResultEventSchema,
    HookRunStartedEventSchema,
    HookRunCompletedEventSchema,
    HookRunBlockedEventSchema,
    HookRunFailedEventSchema,
    ScheduleCompletedEventSchema,
  ],
  { $id: 'ExecutorEvent' },
)
export type ExecutorEvent = Static<typeof ExecutorEventSchema>
export type ExecutorEventType = ExecutorEvent['type']
export type EventOf<T extends ExecutorEventType> = Extract<ExecutorEvent, { type: T }>
export type PermissionRequestedEvent = EventOf<'PermissionRequested'>
export type ModelNetworkStatusEvent = EventOf<'ModelNetworkStatus'>

/** Returns nothing when the sink is synchronous, so the hot path does not await. */
export type EventSink = (event: ExecutorEvent) => void | Promise<unknown>
