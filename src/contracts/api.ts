/**
 * @module The HTTP API's bodies and replies: the one source of the route schemas, of the
 * OpenAPI document and of the generated clients' types.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ApiErrorCodeSchema } from './api-errors.js'
import { ToolFlagsSchema } from './flags.js'
import { IdSchema } from './ids.js'
import { ModelContentBlockSchema } from './model-content.js'
import { CallStatusSchema, ToolExecutionResultSchema, TurnControlSchema } from './result.js'
import {
  AnthropicAssistantContentSchema,
  AnthropicToolResultsMessageSchema,
  OpenAIChatImagesMessageSchema,
  OpenAIChatToolCallsSchema,
  OpenAIChatToolMessageSchema,
  OpenAIFunctionCallOutputSchema,
  OpenAIResponsesOutputSchema,
} from './model-formats.js'
import { DecidedBySchema, RiskLevelSchema, RuleChoiceSchema } from './events.js'
import { ResultBudgetSchema, TimeoutPolicySchema } from './tool-entry.js'
import { SandboxSettingsSchema } from './sandbox.js'
import { SESSION_LABEL_MAX } from './session-label.js'

export { SESSION_LABEL_MAX }

const Id = IdSchema
/** A name the stores keep as text: PostgreSQL's text holds no NUL character. */
const NO_NUL = '^[^\\u0000]*$'

export const ErrorReplySchema = Type.Object(
  {
    error: Type.Object({
      code: ApiErrorCodeSchema,
      message: Type.String({ description: 'What went wrong, for a person: names the value or the place; not meant to be parsed' }),
      details: Type.Optional(Type.Unknown({ description: 'For API_ERR_VALIDATION, every finding of the schema check; for some codes, the values of the message' })),
    }),
  },
  { $id: 'ErrorReply', description: 'Every error reply: 4xx and 5xx alike' },
)
export type ErrorReply = Static<typeof ErrorReplySchema>

export const PermissionModeSchema = Type.Union([Type.Literal('default'), Type.Literal('acceptEdits'), Type.Literal('plan'), Type.Literal('dontAsk'), Type.Literal('bypassPermissions')], {
  $id: 'PermissionMode',
})

/** What a session is created with, but its id: POST /sessions and a schedule's `createSession` alike. */
const SessionFields = {
  // A NUL can be in no path: such a workspace would fail every file tool later.
  workspace: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      pattern: '^[^\\u0000]+$',
      description: "Where the session's tools work (relative: to the server's default, TOOLEXEC_WORKSPACE); never inside the server's own install directory",
    }),
  ),
  permissionMode: Type.Optional(PermissionModeSchema),
  interactive: Type.Optional(Type.Boolean()),
  permissionTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
  /** Added to the config file's sandbox settings for this session's Bash commands. */
  sandbox: Type.Optional(SandboxSettingsSchema),
  fourEyes: Type.Optional(
    Type.Boolean({
      description:
        'Four eyes: the key that scheduled a call may not decide its approval (403 `API_ERR_FOUR_EYES`); without TOOLEXEC_TOKEN everyone is the same `local` principal, so nobody can approve',
    }),
  ),
}

/** A name a person reads in the console's lists: one line of printable text. */
export const SessionLabelSchema = Type.String({
  minLength: 1,
  maxLength: SESSION_LABEL_MAX,
  // Some text that is not blank, and no control character (no line break, tab, escape or NUL),
  // nor a line separator or a bidirectional override, which would make a list read other than it is.
  pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]+$',
  description: `A name for people to tell the session by, 1 to ${SESSION_LABEL_MAX} characters, not blank, no control characters, line separators or bidirectional overrides`,
})

export const CreateSessionBodySchema = Type.Object({ id: Type.Optional(Id), label: Type.Optional(SessionLabelSchema), ...SessionFields }, { $id: 'CreateSessionBody', additionalProperties: false })
export type CreateSessionBody = Static<typeof CreateSessionBodySchema>

export const CreateSessionFieldsSchema = Type.Object(SessionFields, {
  additionalProperties: false,
  description:
    "Create the session `sessionId` when it does not exist, with these fields of POST /sessions' body (its id is `sessionId`); without it an unknown session is a 404 " +
    '`API_ERR_SESSION_NOT_FOUND`. On a session that exists, each field given must equal the one the session has, so that a retry of the same request is accepted; ' +
    'a field that differs is a 409 `API_ERR_SESSION_DIFFERS`, and nothing is stored.',
})
export type CreateSessionFields = Static<typeof CreateSessionFieldsSchema>

export const UpdateSessionBodySchema = Type.Object(
  { label: Type.Union([SessionLabelSchema, Type.Null()], { description: 'The new label; null takes the label away' }) },
  { $id: 'UpdateSessionBody', additionalProperties: false },
)
export type UpdateSessionBody = Static<typeof UpdateSessionBodySchema>

export const SessionStatusSchema = Type.Union([Type.Literal('idle'), Type.Literal('running'), Type.Literal('awaiting_permission')])

export const SessionSchema = Type.Object(
  {
    id: Type.String(),
    workspace: Type.String(),
    permissionMode: PermissionModeSchema,
    interactive: Type.Boolean(),
    permissionTimeoutMs: Type.Union([Type.Integer(), Type.Null()]),
    sandbox: Type.Optional(SandboxSettingsSchema),
    fourEyes: Type.Optional(Type.Boolean({ description: 'Present (true) when the session is under four eyes' })),
    label: Type.Optional(Type.String({ description: 'The name a person gave the session, when one did (POST /sessions, PATCH /sessions/{id})' })),
    createdAt: Type.String(),
    status: SessionStatusSchema,
    counts: Type.Object({
      schedules: Type.Integer(),
      calls: Type.Integer(),
      pendingPermissions: Type.Integer(),
    }),
    lastEventId: Type.Integer(),
  },
  { $id: 'Session' },
)
export type Session = Static<typeof SessionSchema>

export const SessionListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Sessions per page, 1 to 500 (50 when absent)' })),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The `next` of the previous page: sessions created before this one' })),
  },
  { additionalProperties: false },
)
export type SessionListQuery = Static<typeof SessionListQuerySchema>

export const SessionListSchema = Type.Object(
  {
    sessions: Type.Array(SessionSchema),
    next: Type.Optional(Type.String({ description: 'Present when there are older sessions: pass it as `before`' })),
  },
  { $id: 'SessionList' },
)
export type SessionList = Static<typeof SessionListSchema>

export const ScheduleCallInputSchema = Type.Object(
  {
    id: Id,
    name: Type.String({ maxLength: 200, pattern: NO_NUL }),
    input: Type.Unknown(),
    dependsOn: Type.Optional(Type.Array(Id, { maxItems: 100 })),
  },
  { $id: 'ScheduleCallInput', additionalProperties: false },
)
export type ScheduleCallInput = Static<typeof ScheduleCallInputSchema>

/** Calls of one schedule, posted at once or streamed into an open one. */
export const MAX_SCHEDULE_CALLS = 1000

export const CreateScheduleBodySchema = Type.Object(
  {
    sessionId: Id,
    createSession: Type.Optional(CreateSessionFieldsSchema),
    turnId: Type.Optional(Id),
    calls: Type.Optional(Type.Array(ScheduleCallInputSchema, { maxItems: MAX_SCHEDULE_CALLS })),
    anthropic: Type.Optional(AnthropicAssistantContentSchema),
    openaiChat: Type.Optional(OpenAIChatToolCallsSchema),
    openaiResponses: Type.Optional(OpenAIResponsesOutputSchema),
    open: Type.Optional(Type.Boolean()),
  },
  {
    $id: 'CreateScheduleBody',
    additionalProperties: false,
    description:
      "The calls, given in exactly one of four shapes: toolexec's own `calls`, or a model API's reply as it came: `anthropic`, `openaiChat`, `openaiResponses`. " +
      'A function call whose `arguments` is not a JSON object is accepted and fails with a validation error the model reads; the other calls run.',
  },
)
export type CreateScheduleBody = Static<typeof CreateScheduleBodySchema>

export const ScheduleStatusSchema = Type.Union([Type.Literal('open'), Type.Literal('queued'), Type.Literal('running'), Type.Literal('completed'), Type.Literal('stopped'), Type.Literal('cancelled')], {
  $id: 'ScheduleStatus',
})
export type ScheduleStatus = Static<typeof ScheduleStatusSchema>

export const CallRecordStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('awaiting_permission'), Type.Literal('running'), CallStatusSchema], { $id: 'CallRecordStatus' })
export type CallRecordStatus = Static<typeof CallRecordStatusSchema>

export const ScheduleAcceptedReplySchema = Type.Object(
  {
    scheduleId: Type.String(),
    sessionId: Type.String(),
    turnId: Type.String(),
    status: ScheduleStatusSchema,
    groups: Type.Array(Type.Array(Type.String())),
    calls: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        flags: Type.Union([ToolFlagsSchema, Type.Null()]),
        /** R11: started at once while the schedule is open. */
        dispatched: Type.Optional(Type.Boolean()),
      }),
    ),
  },
  { $id: 'ScheduleAccepted' },
)
export type ScheduleAcceptedReply = Static<typeof ScheduleAcceptedReplySchema>

const OUTPUT_DISPLAY_KINDS = '`bash_output` or `background_task_output`'

/**
 * A call's result as a record or a history entry carries it: the event's ToolExecutionResult
 * without the texts the reply already has elsewhere. The ToolCallResult event has it whole.
 */
export const CallResultSchema = Type.Composite(
  [
    Type.Omit(ToolExecutionResultSchema, ['modelContent', 'output']),
    Type.Object({
      output: Type.Optional(
        Type.Unknown({
          description:
            "The tool's output as produced, without the texts this reply has elsewhere: left out when it equals the record's " +
            "`modelContent` (`outputIsModelContent`); an `output.output` text that begins with the record's `modelContent` text keeps " +
            'only what follows it (`outputAfterModelContent`); with a ' +
            OUTPUT_DISPLAY_KINDS +
            ' display, its `output` text stops where ' +
            '`display.output` begins (`outputRestInDisplay`), and an `omitted` part gives `bytes` and `headLength` instead of ' +
            'repeating `head` and `tail`: the head is the first `headLength` characters (UTF-16 code units) of the kept text, ' +
            'then comes `\\n\\n... [<bytes> bytes omitted] ...\\n\\n`, then the tail',
        }),
      ),
      outputIsModelContent: Type.Optional(Type.Literal(true, { description: "`output` is left out: it is the same as the record's (or history entry's) `modelContent`" })),
      outputAfterModelContent: Type.Optional(
        Type.Literal(true, {
          description:
            "`output.output` holds only what follows the record's (or history entry's) `modelContent` text: the tool's output text is " +
            "`modelContent + output.output` (a short command's output, which the model reads as printed but for the last newline)",
        }),
      ),
      outputRestInDisplay: Type.Optional(
        Type.Literal(true, {
          description:
            "`output.output` stops where `display.output` begins: the tool's kept output text is `output.output` followed by " +
            '`display.output`. The whole output, when it was saved, is the artifact `toolexec-artifact://<sessionId>/<artifactId>` ' +
            'named by `serialization.artifactUri` (or `output.artifactUri`): GET /artifacts/{sessionId}/{artifactId}',
        }),
      ),
    }),
  ],
  {
    $id: 'CallResult',
    description:
      "The call's one result (R37, R38) as a record carries it: the ToolCallResult event's `result` without `modelContent`, " +
      "which is the record's own `modelContent`, and without the parts of `output` that repeat a text of this reply",
  },
)
export type CallResult = Static<typeof CallResultSchema>

export const CallRecordSchema = Type.Object(
  {
    id: Type.String(),
    scheduleId: Type.String(),
    name: Type.String(),
    input: Type.Unknown({ description: "The input as the model gave it, whole: the one copy of its large texts (a Write's content) in this reply" }),
    resolvedInput: Type.Optional(
      Type.Unknown({
        description:
          'Once the call started: what resolving the input changed (R13), not a second copy of it. For an object input, only the top-level ' +
          'fields whose value differs from `input` or that it added (`{}` when nothing changed); the fields named in `resolvedInputRemoved` ' +
          'were dropped. The input the tool ran with is `input` without those, with these fields laid over it. ' +
          'The PermissionRequested and ToolCallStarted events carry it whole.',
      }),
    ),
    resolvedInputRemoved: Type.Optional(Type.Array(Type.String(), { description: 'Top-level fields of `input` that the resolved input no longer has' })),
    flags: Type.Optional(ToolFlagsSchema),
    status: CallRecordStatusSchema,
    startedAt: Type.Optional(Type.String()),
    completedAt: Type.Optional(Type.String()),
    modelContent: Type.Optional(
      Type.Union([Type.String(), Type.Array(ModelContentBlockSchema)], {
        description: 'Once the call ended: exactly what the model receives (R37), given here only: `result` does not repeat it',
      }),
    ),
    result: Type.Optional(CallResultSchema),
  },
  { $id: 'CallRecord' },
)
export type CallRecord = Static<typeof CallRecordSchema>

export const ScheduleReplySchema = Type.Object(
  {
    scheduleId: Type.String(),
    sessionId: Type.String(),
    turnId: Type.String(),
    status: ScheduleStatusSchema,
    groups: Type.Array(Type.Array(Type.String())),
    calls: Type.Array(CallRecordSchema),
  },
  { $id: 'Schedule' },
)
export type ScheduleReply = Static<typeof ScheduleReplySchema>

export const AddCallBodySchema = ScheduleCallInputSchema

export const PermissionAnswerBodySchema = Type.Object(
  {
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
    scope: Type.Optional(Type.Union([Type.Literal('once'), Type.Literal('session'), Type.Literal('project')])),
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    rules: Type.Optional(
      Type.Array(Type.String({ maxLength: 10_000 }), {
        minItems: 1,
        maxItems: 64,
        description: "With scope `project`: the `rules` of one of the request's `suggestedRules`, the choice the person took (else 400 `API_ERR_RULE_NOT_OFFERED`); absent: the `suggestedRule`",
      }),
    ),
    /** When given, the request must belong to this session. */
    sessionId: Type.Optional(Id),
    inputHash: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: "The request's `inputHash` as the decider saw it: when given, the decision holds only for that exact input (else 409 `API_ERR_PERMISSION_INPUT_CHANGED`)",
      }),
    ),
  },
  { $id: 'PermissionAnswerBody', additionalProperties: false },
)
export type PermissionAnswerBody = Static<typeof PermissionAnswerBodySchema>

export const PermissionRequestRecordSchema = Type.Object(
  {
    id: Type.String(),
    sessionId: Type.String(),
    callId: Type.String(),
    toolName: Type.String(),
    input: Type.Unknown(),
    inputHash: Type.String({ description: 'SHA-256 (hex) of `input` in the JSON Canonicalization Scheme (RFC 8785); send it with the decision to bind the decision to this input' }),
    preview: Type.Optional(Type.Unknown({ description: 'As in the PermissionRequested event: a diff, or where and how a command would run' })),
    riskLevel: RiskLevelSchema,
    reason: Type.String(),
    suggestedRule: Type.Optional(Type.String()),
    suggestedRules: Type.Optional(Type.Array(RuleChoiceSchema, { description: 'The project rules a decision with scope `project` may add, `suggestedRule` first' })),
    status: Type.Union([Type.Literal('pending'), Type.Literal('allow'), Type.Literal('deny')]),
    decidedBy: Type.Optional(DecidedBySchema),
    deciderId: Type.Optional(Type.String({ description: 'Who decided through POST /permissions/{id}: the key id, `admin` (TOOLEXEC_TOKEN) or `local` (no token)' })),
    deciderName: Type.Optional(Type.String({ description: "That key's name" })),
    message: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    createdAt: Type.String(),
    decidedAt: Type.Optional(Type.String()),
  },
  { $id: 'PermissionRequestRecord' },
)
export type PermissionRequestRecord = Static<typeof PermissionRequestRecordSchema>

export const ToolInfoSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    inputSchema: Type.Unknown(),
    flags: ToolFlagsSchema,
    timeout: Type.Optional(TimeoutPolicySchema),
    resultBudget: ResultBudgetSchema,
  },
  { $id: 'ToolInfo' },
)
export type ToolInfo = Static<typeof ToolInfoSchema>

export const HistoryEntrySchema = Type.Object(
  {
    scheduleId: Type.String(),
    turnId: Type.String(),
    callId: Type.String(),
    toolName: Type.String(),
    input: Type.Unknown({ description: "The input as the model gave it, whole; the schedule's call records say what resolving it changed (`resolvedInput`)" }),
    status: CallRecordStatusSchema,
    isError: Type.Boolean(),
    modelContent: Type.Union([Type.String(), Type.Array(ModelContentBlockSchema)], {
      description: 'Exactly what the model received (R37), given here only: `result` does not repeat it',
    }),
    result: CallResultSchema,
  },
  { $id: 'HistoryEntry' },
)
export type HistoryEntry = Static<typeof HistoryEntrySchema>

export const ProjectRuleSchema = Type.Object({ id: Type.String(), workspace: Type.String(), rule: Type.String(), createdAt: Type.String() }, { $id: 'ProjectRule' })
export type ProjectRule = Static<typeof ProjectRuleSchema>

// ---------------------------------------------------------------- GET /schedules/:id?format=

const formattedReplyFields = {
  scheduleId: Type.String(),
  sessionId: Type.String(),
  turnId: Type.String(),
  status: ScheduleStatusSchema,
  done: Type.Boolean({ description: "Every call of the schedule has ended (and it is closed): the format's results are present" }),
  stopTurn: Type.Boolean({ description: 'R30: a result asks to end the turn after it: send the results, then do not call the model again' }),
  turnControl: Type.Optional(TurnControlSchema),
}

export const AnthropicScheduleReplySchema = Type.Object(
  { ...formattedReplyFields, message: Type.Optional(AnthropicToolResultsMessageSchema) },
  { $id: 'AnthropicSchedule', description: 'format=anthropic: `message` once `done`' },
)
export type AnthropicScheduleReply = Static<typeof AnthropicScheduleReplySchema>

export const OpenAIChatScheduleReplySchema = Type.Object(
  { ...formattedReplyFields, messages: Type.Optional(Type.Array(Type.Union([OpenAIChatToolMessageSchema, OpenAIChatImagesMessageSchema]))) },
  { $id: 'OpenAIChatSchedule', description: 'format=openai-chat: `messages` once `done`: one tool message per call, in call order, then at most one user message with the images' },
)
export type OpenAIChatScheduleReply = Static<typeof OpenAIChatScheduleReplySchema>

export const OpenAIResponsesScheduleReplySchema = Type.Object(
  { ...formattedReplyFields, input: Type.Optional(Type.Array(OpenAIFunctionCallOutputSchema)) },
  { $id: 'OpenAIResponsesSchedule', description: 'format=openai-responses: `input` once `done`: one `function_call_output` per call, in call order' },
)
export type OpenAIResponsesScheduleReply = Static<typeof OpenAIResponsesScheduleReplySchema>

export type FormattedScheduleReply = AnthropicScheduleReply | OpenAIChatScheduleReply | OpenAIResponsesScheduleReply
