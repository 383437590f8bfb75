/**
 * @module The tool entry contract: what a tool declares (serializable, TypeBox) and the
 * optional functions the executor calls at fixed points of the pipeline (R12).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { Display } from './display.js'
import type { ToolFlags } from './flags.js'
import { SideEffectScopeSchema } from './flags.js'
import type { ModelContent } from './model-content.js'
import type { Serialization, TurnControl } from './result.js'
import { RetentionSchema, type ArtifactRef, type ToolCallContext, type ToolServices } from './tool-context.js'

export { RetentionSchema, type Retention } from './tool-context.js'

export const TimeoutPolicySchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('none'), Type.Literal('deadline')]),
    defaultMs: Type.Optional(Type.Number({ minimum: 1 })),
    maxMs: Type.Optional(Type.Number({ minimum: 1 })),
    allowCallOverride: Type.Optional(Type.Boolean()),
    cleanupGraceMs: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { $id: 'TimeoutPolicy' },
)
export type TimeoutPolicy = Static<typeof TimeoutPolicySchema>

export const ResultBudgetSchema = Type.Object(
  {
    maxModelBytes: Type.Integer({ minimum: 1 }),
    maxInlineBytes: Type.Integer({ minimum: 1 }),
    strategy: Type.Union([Type.Literal('artifact'), Type.Literal('truncate')]),
    previewDirection: Type.Union([Type.Literal('head'), Type.Literal('tail')]),
  },
  { $id: 'ResultBudget' },
)
export type ResultBudget = Static<typeof ResultBudgetSchema>

export const ToolDescriptorSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    description: Type.String(),
    inputSchema: Type.Unknown({ description: 'JSON Schema of the input' }),
    readOnly: Type.Boolean(),
    destructive: Type.Boolean(),
    concurrentSafe: Type.Boolean(),
    permission: Type.Object({
      sideEffectScope: SideEffectScopeSchema,
      alwaysAsk: Type.Optional(Type.Boolean()),
    }),
    requiresUserInteraction: Type.Optional(Type.Boolean()),
    timeout: Type.Optional(TimeoutPolicySchema),
    resultBudget: Type.Optional(ResultBudgetSchema),
    cancellation: Type.Optional(Type.Object({ userVisibleMessage: Type.Optional(Type.String()) })),
    retention: Type.Optional(RetentionSchema),
    metadata: Type.Optional(Type.Object({ timeoutMs: Type.Optional(Type.Number({ minimum: 1 })) })),
  },
  { $id: 'ToolDescriptor' },
)
export type ToolDescriptor = Static<typeof ToolDescriptorSchema>

/** A business failure a handler returns as a value (R26, A4). */
export interface ToolBusinessFailure {
  readonly result: false
  readonly errorCode?: string
  readonly message: string
}

export interface ApprovalPreview {
  readonly title?: string
  readonly text?: string
  readonly display?: Display
  /** The whole diff, when `display` is a file_diff that had to be cut: a person may open it. */
  readonly wholeDiff?: Display
  /** Where and how a command would run once allowed (Bash). */
  readonly command?: CommandPreview
}

/** What an allowed command may do: its directory, its sandbox, what it may write and reach. */
export interface CommandPreview {
  readonly cwd: string
  /** Runs in the sandbox; when false, with the server's own rights. */
  readonly confined: boolean
  /** Why it is not confined. */
  readonly reason?: string
  /** Where it may write, when confined. */
  readonly writable: readonly string[]
  /** Paths in the workspace it may not write, when confined. */
  readonly protected: readonly string[]
  /** Network access. */
  readonly network: boolean
}

export interface ApprovalPreparation {
  /** Only a narrowing to allow is honoured (R15). */
  readonly behavior?: 'allow' | 'ask'
  readonly preview?: ApprovalPreview
}

export interface PersistedContentArgs {
  readonly content: string
  readonly originalBytes: number
  readonly persistedPath: string
  readonly artifactUri: string
}

export interface DisplayArgs<I, O> {
  readonly input: I
  readonly output: O
  readonly serialization: Serialization
  readonly fullText: string
}

/**
 * What a call touches, as the permission rules and checks see it (R14, A9): a file read or
 * written, a shell command, a URL. `Edit(...)` rules match every file write, `Read(...)`
 * rules every file read, whatever the tool is called.
 */
export type AccessTarget =
  { readonly kind: 'file'; readonly access: 'read' | 'write'; readonly path: string } | { readonly kind: 'command'; readonly command: string } | { readonly kind: 'url'; readonly url: string }

/** What a person's denial of the call's ask means for the turn (A5). */
export interface AskedDenial {
  /** The model's text when the person said why; their words become the next user input. */
  readonly withFeedback: string
  /** Without a reason the turn stops with this control. */
  readonly withoutFeedback: TurnControl
}

export interface InputContext {
  readonly sessionId: string
  readonly callId: string
  readonly workspace?: string | undefined
  /** The server's services, where the executor has them (approval previews read the sandbox settings). */
  readonly services?: Partial<ToolServices> | undefined
}

/**
 * A tool as the registry holds it. Methods use method syntax on purpose: parameters are then
 * checked bivariantly, so a ToolEntry<{path: string}> is a ToolEntry<unknown> in a registry.
 */
export interface ToolEntry<I = unknown, O = unknown> extends Omit<ToolDescriptor, 'inputSchema'> {
  readonly inputSchema: TSchema
  handler(input: I, ctx: ToolCallContext): Promise<O | ToolBusinessFailure>
  resolveInput?(input: I, ctx: InputContext): I | Promise<I>
  /** Flags that depend on the input (Bash's read-only commands, R40). */
  resolveFlags?(input: I): Partial<ToolFlags>
  prepareApproval?(input: I, ctx: InputContext): ApprovalPreparation | Promise<ApprovalPreparation>
  resolveTimeoutBudgetMs?(input: I): number | undefined
  formatModelContent?(output: O): ModelContent
  formatPersistedModelContent?(args: PersistedContentArgs): string
  /** The artifact a tool already streamed its full output into (Bash), so none is written again. */
  persistedArtifact?(output: O): ArtifactRef | undefined
  buildDisplay?(args: DisplayArgs<I, O>): Display | undefined
  /**
   * What is stored, streamed and returned in place of the output once the display is built and
   * the PostToolUse hooks ran (they get the whole output): a compact record of a bulky output.
   */
  recordedOutput?(output: O): unknown
  /** What the call reads, writes, runs or fetches, for the permission rules; undefined when nothing of note. */
  accessTarget?(input: I): AccessTarget | undefined
  /** The turn control a success attaches (R30, A5: submit_result ends a sub-agent's turn). */
  readonly turnControlOnSuccess?: TurnControl
  /** What a person's denial of this call's ask does to the turn (A5: ExitPlanMode). */
  readonly askedDenial?: AskedDenial
  /** R28: an `interrupted` result is an error in history even when it succeeded (Bash's partial output). */
  readonly interruptedIsError?: boolean
}

/** A tool entry whose input type comes from its TypeBox schema. */
export type ToolEntryOf<S extends TSchema, O> = Omit<ToolEntry<Static<S>, O>, 'inputSchema'> & { readonly inputSchema: S }

/** Declares a tool with its input type inferred from the TypeBox schema. */
export function defineTool<S extends TSchema, O>(entry: ToolEntryOf<S, O>): ToolEntry<Static<S>, O> {
  return entry
}
