/** @module ToolExecutionResult: the one outcome of a call, in its two projections (R37). */
import { Type, type Static } from '@sinclair/typebox'
import { DisplaySchema } from './display.js'
import { ModelContentSchema } from './model-content.js'

export const CallStatusSchema = Type.Union(
  [Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('denied'), Type.Literal('cancelled'), Type.Literal('timed_out'), Type.Literal('interrupted')],
  { $id: 'CallStatus' },
)
export type CallStatus = Static<typeof CallStatusSchema>

export const ErrorStageSchema = Type.Union(
  [
    Type.Literal('lookup'),
    Type.Literal('validation'),
    Type.Literal('resolve_input'),
    Type.Literal('pre_tool_use'),
    Type.Literal('permission'),
    Type.Literal('handler'),
    Type.Literal('serialization'),
    Type.Literal('post_tool_use'),
    Type.Literal('scheduling'),
  ],
  { $id: 'ErrorStage' },
)
export type ErrorStage = Static<typeof ErrorStageSchema>

export const ErrorClassSchema = Type.Union(
  [
    Type.Literal('not_found'),
    Type.Literal('validation'),
    Type.Literal('permission_denied'),
    Type.Literal('hook_blocked'),
    Type.Literal('cancelled'),
    Type.Literal('timeout'),
    Type.Literal('business'),
    Type.Literal('exception'),
    Type.Literal('turn_stop'),
    Type.Literal('interrupted'),
  ],
  { $id: 'ErrorClass' },
)
export type ErrorClass = Static<typeof ErrorClassSchema>

export const ResultErrorSchema = Type.Object({
  message: Type.String(),
  stage: ErrorStageSchema,
  errorClass: ErrorClassSchema,
  code: Type.Optional(Type.String()),
  context: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
})
export type ResultError = Static<typeof ResultErrorSchema>

export const BudgetStrategySchema = Type.Union([Type.Literal('inline'), Type.Literal('truncate'), Type.Literal('artifact')])
export type BudgetStrategy = Static<typeof BudgetStrategySchema>

export const SerializationSchema = Type.Object({
  truncated: Type.Boolean(),
  originalBytes: Type.Integer(),
  actualBytes: Type.Integer(),
  strategy: BudgetStrategySchema,
  persistedPath: Type.Optional(Type.String()),
  artifactUri: Type.Optional(Type.String()),
})
export type Serialization = Static<typeof SerializationSchema>

export const TurnControlSchema = Type.Object({
  reason: Type.String(),
  stopTurnAfterResult: Type.Literal(true),
})
export type TurnControl = Static<typeof TurnControlSchema>

/** A5: a sub-agent's final answer ends its turn. */
export const SUBAGENT_TERMINAL: TurnControl = Object.freeze({ reason: 'subagent_terminal', stopTurnAfterResult: true })
/** A5: a plan the person rejected without a word ends the turn. */
export const PLAN_EXIT_DENIED: TurnControl = Object.freeze({ reason: 'plan_exit_denied', stopTurnAfterResult: true })

export const PerfSchema = Type.Object({
  totalMs: Type.Number(),
  permissionWaitMs: Type.Number(),
  queuedMs: Type.Number(),
})
export type Perf = Static<typeof PerfSchema>

export const PermissionOutcomeSchema = Type.Union([Type.Literal('none'), Type.Literal('approved'), Type.Literal('denied')])
export type PermissionOutcome = Static<typeof PermissionOutcomeSchema>

export const ToolExecutionResultSchema = Type.Object(
  {
    callId: Type.String(),
    toolName: Type.String(),
    success: Type.Boolean(),
    status: CallStatusSchema,
    /** R28: how history treats it (failed, output.isError, or an interrupted Bash). */
    isError: Type.Boolean(),
    /** R37: exactly what the model receives, after budget, envelope and hook context. */
    modelContent: ModelContentSchema,
    /** The tool's output as produced (text output for storage and the UI). */
    output: Type.Optional(Type.Unknown()),
    display: Type.Optional(DisplaySchema),
    error: Type.Optional(ResultErrorSchema),
    control: Type.Optional(Type.Object({ turnControl: Type.Optional(TurnControlSchema) })),
    serialization: SerializationSchema,
    perf: PerfSchema,
    permission: PermissionOutcomeSchema,
    hookContext: Type.Array(Type.String()),
  },
  { $id: 'ToolExecutionResult' },
)
export type ToolExecutionResult = Static<typeof ToolExecutionResultSchema>
