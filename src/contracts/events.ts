/**
 * @module The executor's event union (R37, R40, A7). Every event names its session; the host
 * that stores and streams them adds the sequence number and the time.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ToolFlagsSchema } from './flags.js'
import { ToolExecutionResultSchema } from './result.js'

const Str = Type.String()
const text = (description: string) => Type.String({ description })
const base = { sessionId: text('The session the event belongs to') }
const callId = text("The tool call's id, as the client gave it in the schedule")
const toolName = text('The name of the called tool')

export const DecidedBySchema = Type.Union(
  [
    Type.Literal('client', { description: 'A person or client answered through POST /permissions/{id}' }),
    Type.Literal('hook', { description: 'A PermissionRequest hook answered first' }),
    Type.Literal('rule', { description: 'A permission rule or the permission mode decided without asking' }),
    Type.Literal('broker', { description: 'The server closed a request superseded by a new one for the same call' }),
    Type.Literal('timeout', { description: "Nobody answered within the session's permissionTimeoutMs" }),
    Type.Literal('abort', { description: 'The turn was aborted while the request waited' }),
  ],
  { $id: 'DecidedBy', description: 'Who decided a permission request' },
)
export type DecidedBy = Static<typeof DecidedBySchema>

export const RiskLevelSchema = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')], {
  description: 'How much harm the call could do if it went wrong, as the permission rules judge it',
})
export type RiskLevel = Static<typeof RiskLevelSchema>

export const RuleChoiceSchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('exact'), Type.Literal('prefix'), Type.Literal('segments')], {
      description:
        '`exact`: this command (or file, domain, tool) only; `prefix`: each part of the command by its first words (`Bash(npm test:*)`); `segments`: each part of a compound command exactly',
    }),
    rules: Type.Array(Type.String(), { minItems: 1, description: 'The allow rules the choice adds, all of them: together they allow this call again, and every part of it' }),
  },
  { description: 'Project rules an approval may add ("allow for the project")' },
)
export type RuleChoice = Static<typeof RuleChoiceSchema>

const scheduleId = text('The schedule the event belongs to')
const batchIndex = Type.Integer({ minimum: 0, description: "The batch's position in the schedule's `groups`, from 0" })
const batchCallIds = Type.Array(Str, { description: 'The ids of the calls of the batch, in schedule order' })

export const ScheduleAcceptedEventSchema = Type.Object(
  {
    type: Type.Literal('ScheduleAccepted'),
    ...base,
    scheduleId,
    turnId: text('The turn (model reply) the schedule belongs to'),
    groups: Type.Array(Type.Array(Str), { description: 'The batches the calls run in, in order: the calls of one batch run in parallel' }),
    calls: Type.Optional(
      Type.Array(Type.Object({ id: Str, name: toolName }), {
        description: "Each call's id and tool name, in schedule order (absent from events stored before it was added): a viewer names the calls without reading the schedule",
      }),
    ),
  },
  { description: 'A schedule was stored; its calls will run in these batches' },
)
export const BatchStartedEventSchema = Type.Object(
  {
    type: Type.Literal('BatchStarted'),
    ...base,
    scheduleId: Type.Optional(scheduleId),
    batchIndex,
    callIds: batchCallIds,
  },
  { description: 'A batch of calls started' },
)
export const BatchCompletedEventSchema = Type.Object(
  {
    type: Type.Literal('BatchCompleted'),
    ...base,
    scheduleId: Type.Optional(scheduleId),
    batchIndex,
    callIds: batchCallIds,
    stopTurn: Type.Boolean({ description: 'A result of the batch asked to stop the turn: the batches after it are cancelled' }),
  },
  { description: 'Every call of a batch has its result' },
)
export const ToolCallStartedEventSchema = Type.Object(
  {
    type: Type.Literal('ToolCallStarted'),
    ...base,
    callId,
    toolName,
    input: Type.Unknown({ description: 'The input the handler runs with: after normalization and any rewrite by a hook, as approved' }),
    flags: ToolFlagsSchema,
  },
  { description: "A call passed validation, hooks and permission; its handler runs now (the call's timeout starts)" },
)
export const PermissionRequestedEventSchema = Type.Object(
  {
    type: Type.Literal('PermissionRequested'),
    ...base,
    permissionId: text('The id to answer with POST /permissions/{id}'),
    callId,
    toolName,
    input: Type.Unknown({ description: 'The input the call would run with if allowed' }),
    inputHash: text('SHA-256 (hex) of `input` in the JSON Canonicalization Scheme (RFC 8785): send it with the decision to bind it to this input'),
    preview: Type.Optional(
      Type.Unknown({
        description:
          'What the call would change, when the tool can tell: for a Write or an Edit `display`, a file_diff (the file relative to the workspace) and, when that diff is cut, `wholeDiff`, all of it; ' +
          'for Bash `command`: `cwd`, `confined` (with `reason` when not), where an allowed command may write (`writable`, but `protected`) and `network`',
      }),
    ),
    riskLevel: RiskLevelSchema,
    reason: text('Why a person is asked'),
    suggestedRule: Type.Optional(text('A permission rule that would allow calls like this one, to offer as "always allow"')),
    suggestedRules: Type.Optional(
      Type.Array(RuleChoiceSchema, { description: 'The project rules a decision with scope `project` may add (its `rules`), the narrowest first; absent: `suggestedRule` alone' }),
    ),
  },
  { description: 'A call waits for approval: answer it with POST /permissions/{id}' },
)
export const PermissionResolvedEventSchema = Type.Object(
  {
    type: Type.Literal('PermissionResolved'),
    ...base,
    permissionId: Type.Optional(text('The answered request; absent when a rule decided without asking')),
    callId,
    toolName,
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')], { description: 'Whether the call may run' }),
    decidedBy: DecidedBySchema,
    reason: Type.Optional(text("The deny message or the rule's reason")),
    ruleId: Type.Optional(text('The rule, or the PermissionRequest hook, that decided')),
    scope: Type.Optional(text('How far an allow given by a person reaches: once, session or project')),
    rules: Type.Optional(Type.Array(Type.String(), { description: 'With scope `project`, the rules the person chose to add; absent: `suggestedRule`' })),
    deciderId: Type.Optional(text('The person who decided (decidedBy `client`): the key id, `admin` (TOOLEXEC_TOKEN) or `local` (no token)')),
    deciderName: Type.Optional(text("That key's name")),
  },
  { description: 'A permission decision for a call: a person, a hook, a rule, a timeout or an abort decided' },
)
export const ModelNetworkStatusEventSchema = Type.Object(
  {
    type: Type.Literal('ModelNetworkStatus'),
    ...base,
    callId,
    status: Type.Union([Type.Literal('model_request_queued'), Type.Literal('model_request_admitted'), Type.Literal('model_request_completed'), Type.Literal('model_request_failed')], {
      description: "Where the call's model request stands: waiting for admission, admitted, done, failed",
    }),
    queuedMs: Type.Optional(Type.Number({ minimum: 0, description: 'How long the request waited for admission, in milliseconds (on admission)' })),
  },
  { description: "A tool's request to the model moved on; the call's timeout does not run while it waits for admission (R22)" },
)
export const ToolCallProgressEventSchema = Type.Object(
  {
    type: Type.Literal('ToolCallProgress'),
    ...base,
    callId,
    toolName,
    progress: Type.Record(Str, Type.Unknown(), { description: 'What the tool reports, in its own shape (output so far, bytes, a step)' }),
  },
  { description: 'A running call reported progress' },
)
export const ToolCallResultEventSchema = Type.Object(
  {
    type: Type.Literal('ToolCallResult'),
    ...base,
    callId,
    toolName,
    result: ToolExecutionResultSchema,
  },
  { description: 'A call ended (succeeded, failed, denied, cancelled, timed out or interrupted): its one result, with the exact modelContent the model receives' },
)
const hookRunFields = {
  ...base,
  callId,
  toolName,
  hookEvent: text('The hook event: PreToolUse, PostToolUse, PostToolUseFailure or PermissionRequest'),
  hook: text('The hook: `command: ` and its command line, or `http: ` and its URL (cut at 80 characters)'),
}
export const HookRunStartedEventSchema = Type.Object({ type: Type.Literal('HookRunStarted'), ...hookRunFields }, { description: 'A hook started for a call' })
export const HookRunCompletedEventSchema = Type.Object(
  {
    type: Type.Literal('HookRunCompleted'),
    ...hookRunFields,
    output: Type.Optional(Type.Unknown({ description: 'What the hook answered, as parsed' })),
  },
  { description: 'A hook ended without blocking the call' },
)
export const HookRunBlockedEventSchema = Type.Object(
  {
    type: Type.Literal('HookRunBlocked'),
    ...hookRunFields,
    reason: text("The hook's reason, as the model will read it"),
  },
  { description: 'A hook blocked the call' },
)
export const HookRunFailedEventSchema = Type.Object(
  {
    type: Type.Literal('HookRunFailed'),
    ...hookRunFields,
    error: text('Why the hook failed: its exit, its timeout or a malformed answer'),
  },
  { description: 'A hook failed; the call goes on unless the hook fails closed' },
)
export const ScheduleCompletedEventSchema = Type.Object(
  {
    type: Type.Literal('ScheduleCompleted'),
    ...base,
    scheduleId,
    status: Type.Union([Type.Literal('completed'), Type.Literal('stopped'), Type.Literal('cancelled')], {
      description: 'completed: every call has its result; stopped: a result stopped the turn; cancelled: the turn was aborted',
    }),
  },
  { description: 'A schedule ended: every one of its calls has a result' },
)
export const BackgroundTaskLostEventSchema = Type.Object(
  {
    type: Type.Literal('BackgroundTaskLost'),
    ...base,
    taskId: text('The background task, as the call that started it answered (`bash_...`)'),
    callId: text('The call that started it'),
    command: text('Its command'),
    nodeId: text('The server that ran it'),
    outputPath: Type.Optional(text('The file its output was written to until then')),
  },
  {
    description:
      'A background task was still running when the server that ran it stopped (a crash, or a cluster node that died): found when the session was recovered, it is lost. TaskOutput and TaskStop say so.',
  },
)

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
    BackgroundTaskLostEventSchema,
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
