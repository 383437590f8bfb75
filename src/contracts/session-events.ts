/**
 * @module The events as a client reads them: each stream frame's `data:` is one executor
 * event (events.ts) with the two fields the host adds when it stores it, `seq` and `at`.
 * One named schema per event type, joined in one union discriminated by `type`.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox'
import * as executor from './events.js'

const FrameFieldsSchema = Type.Object({
  seq: Type.Integer({ minimum: 1, description: "The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:`" }),
  at: Type.String({ description: 'When the event was stored, ISO 8601 in UTC' }),
})

/** The event as stored and streamed: its own fields and the frame fields, under its own name. */
function framed<T extends TObject>(event: T, name: string) {
  return Type.Composite([event, FrameFieldsSchema], { $id: name, description: event.description })
}

export const ScheduleAcceptedEventSchema = framed(executor.ScheduleAcceptedEventSchema, 'ScheduleAcceptedEvent')
export const BatchStartedEventSchema = framed(executor.BatchStartedEventSchema, 'BatchStartedEvent')
export const BatchCompletedEventSchema = framed(executor.BatchCompletedEventSchema, 'BatchCompletedEvent')
export const ToolCallStartedEventSchema = framed(executor.ToolCallStartedEventSchema, 'ToolCallStartedEvent')
export const PermissionRequestedEventSchema = framed(executor.PermissionRequestedEventSchema, 'PermissionRequestedEvent')
export const PermissionResolvedEventSchema = framed(executor.PermissionResolvedEventSchema, 'PermissionResolvedEvent')
export const ModelNetworkStatusEventSchema = framed(executor.ModelNetworkStatusEventSchema, 'ModelNetworkStatusEvent')
export const ToolCallProgressEventSchema = framed(executor.ToolCallProgressEventSchema, 'ToolCallProgressEvent')
export const ToolCallResultEventSchema = framed(executor.ToolCallResultEventSchema, 'ToolCallResultEvent')
export const HookRunStartedEventSchema = framed(executor.HookRunStartedEventSchema, 'HookRunStartedEvent')
export const HookRunCompletedEventSchema = framed(executor.HookRunCompletedEventSchema, 'HookRunCompletedEvent')
export const HookRunBlockedEventSchema = framed(executor.HookRunBlockedEventSchema, 'HookRunBlockedEvent')
export const HookRunFailedEventSchema = framed(executor.HookRunFailedEventSchema, 'HookRunFailedEvent')
export const ScheduleCompletedEventSchema = framed(executor.ScheduleCompletedEventSchema, 'ScheduleCompletedEvent')
export const BackgroundTaskLostEventSchema = framed(executor.BackgroundTaskLostEventSchema, 'BackgroundTaskLostEvent')

export const SessionEventSchema = Type.Union(
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
    BackgroundTaskLostEventSchema,
  ],
  {
    $id: 'SessionEvent',
    description: "The `data:` of one event stream frame: one JSON object, told apart by `type` (also the frame's `event:`)",
    discriminator: { propertyName: 'type' },
  },
)
export type SessionEvent = Static<typeof SessionEventSchema>
export type SessionEventType = SessionEvent['type']

/** The names a client can listen for (EventSource's addEventListener), in the order the union lists them. */
export const SESSION_EVENT_TYPES: readonly SessionEventType[] = SessionEventSchema.anyOf.map((member) => member.properties.type.const)

// Every executor event has its stream form and no other: a new event type fails to compile until it is added above.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const EVERY_EXECUTOR_EVENT_IS_STREAMED: Same<SessionEventType, executor.ExecutorEventType> = true
void EVERY_EXECUTOR_EVENT_IS_STREAMED
