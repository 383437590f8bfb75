/**
 * @module The ports the executor reaches the world through (R2). The executor is built once
 * with these; tests pass real implementations on temporary paths.
 */
import type { DecidedBy, EventSink, RiskLevel } from './events.js'
import type { ToolFlags } from './flags.js'
import type { Retention, ToolEntry, ApprovalPreview } from './tool-entry.js'
import type { ToolExecutionResult } from './result.js'

export interface Clock {
  /** Milliseconds; only differences are used. */
  now(): number
}

export interface ToolRegistry {
  get(name: string): ToolEntry | undefined
  list(): readonly ToolEntry[]
}

export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions'
export type PermissionBehavior = 'allow' | 'ask' | 'deny'

export interface PermissionQuery {
  readonly sessionId: string
  readonly callId: string
  readonly toolName: string
  readonly input: unknown
  readonly flags: ToolFlags
  readonly entry: ToolEntry
  readonly mode: PermissionMode
  readonly workspace?: string | undefined
}

export interface PermissionVerdict {
  readonly behavior: PermissionBehavior
  readonly reason?: string | undefined
  /** Which rule decided (`mode.default`, `Bash(git status)`, ...). */
  readonly ruleId?: string | undefined
  /** An `ask` that an explicit ask rule produced; the memory-file rule does not lift it (A9). */
  readonly explicitAsk?: boolean | undefined
  /** A deny that comes only from plan mode's blanket rule; memory files are exempt (A9). */
  readonly modeDeny?: boolean | undefined
  readonly riskLevel?: RiskLevel | undefined
  /** The narrowest rule that would allow this request again ("always allow"). */
  readonly suggestedRule?: string | undefined
  /** The real location, when asked or allowed, of a path outside the workspace (by name or through a symlink). */
  readonly leadsTo?: string | undefined
}

export interface PermissionService {
  evaluate(query: PermissionQuery): PermissionVerdict | Promise<PermissionVerdict>
}

export interface PermissionRequest {
  readonly permissionId: string
  readonly sessionId: string
  readonly callId: string
  readonly toolName: string
  readonly input: unknown
  readonly preview?: ApprovalPreview | undefined
  readonly riskLevel: RiskLevel
  readonly reason: string
  readonly suggestedRule?: string | undefined
}

export interface PermissionAnswer {
  readonly decision: 'allow' | 'deny'
  readonly decidedBy: DecidedBy
  /** A deny message or allow reason; a deny's message reaches the model. */
  readonly message?: string | undefined
  readonly scope?: 'once' | 'session' | 'project' | undefined
}

/**
 * One pending approval. The first `settle` wins and later ones return false (R16); the ticket
 * exists before the request is visible, so no answer can be dropped.
 */
export interface PermissionTicket {
  readonly request: PermissionRequest
  readonly answer: Promise<PermissionAnswer>
  settle(answer: PermissionAnswer): boolean
  readonly settled: PermissionAnswer | undefined
}

export interface PermissionBroker {
  readonly interactive: boolean
  open(request: PermissionRequest): PermissionTicket
}

export type HookEventName = 'PreToolUse' | 'PermissionRequest' | 'PostToolUse' | 'PostToolUseFailure'

export interface HookPayload {
  readonly hookEventName: HookEventName
  readonly sessionId: string
  readonly callId: string
  readonly toolName: string
  readonly toolInput: unknown
  readonly workspace?: string | undefined
  readonly toolResult?: { readonly success: boolean; readonly output?: unknown; readonly modelContent?: unknown }
  readonly error?: string | undefined
  readonly isInterrupt?: boolean | undefined
}

/** One hook's answer, with Claude Code's field names. */
export interface HookOutput {
  readonly hook?: string | undefined
  readonly permissionDecision?: 'allow' | 'deny' | 'ask' | undefined
  readonly reason?: string | undefined
  readonly updatedInput?: unknown
  readonly additionalContext?: string | undefined
  /** PermissionRequest: allow|deny. PostToolUse: block. */
  readonly decision?: 'allow' | 'deny' | 'block' | undefined
  readonly message?: string | undefined
}

export interface HookRunner {
  /** Cheap test so that the hot path skips hook points with no hook. */
  has(event: HookEventName, toolName: string): boolean
  run(event: HookEventName, payload: HookPayload, signal: AbortSignal, emit?: EventSink): Promise<readonly HookOutput[]>
}

export interface ArtifactWrite {
  readonly sessionId: string
  readonly callId: string
  readonly content: string | Uint8Array
  readonly mediaType: string
  readonly retention: Retention
}

export interface ArtifactRef {
  readonly id: string
  readonly sessionId: string
  readonly callId: string
  readonly path: string
  readonly uri: string
  readonly bytes: number
  readonly mediaType: string
  readonly retention: Retention
  readonly sha256: string
}

/** A write whose content comes later, piece by piece (a command's output while it runs). */
export type ArtifactOpenRequest = Omit<ArtifactWrite, 'content'>

/**
 * An artifact being written. The bytes become visible as a whole on `close` (a reader never
 * sees half a file); `discard` drops them.
 */
export interface ArtifactStream {
  /** Bytes accepted so far. */
  readonly bytes: number
  /** Returns a promise only when the writer is saturated: wait for it before writing more. */
  write(chunk: Uint8Array): void | Promise<void>
  close(): Promise<ArtifactRef>
  discard(): Promise<void>
}

/** What a reserved artifact publishes: the first `bytes` bytes of its file. */
export interface ArtifactCommit {
  readonly bytes: number
  /** Their sha256, when the writer already has it; otherwise the store computes it. */
  readonly sha256?: string | undefined
  /** Something may still be appending to the file: publish a copy of those bytes, not the file. */
  readonly copy?: boolean | undefined
}

/**
 * A file reserved for an artifact that someone else fills, such as a command writing its
 * output straight into it. Nothing is visible under the artifact's name before `commit`.
 */
export interface ArtifactReservation {
  /** The temporary file, beside the artifact's final place; readable while it is filled. */
  readonly path: string
  /** The file opened write-only for appending, to hand to the writer (a child's stdout and stderr). */
  readonly fd: number
  /** Closes this process's copy of `fd` (a child keeps its own); safe to call more than once. */
  closeFd(): void
  commit(content: ArtifactCommit): Promise<ArtifactRef>
  discard(): Promise<void>
}

export interface ArtifactStore {
  write(request: ArtifactWrite): Promise<ArtifactRef>
  /** Streams content too large to hold in memory; a store without it only takes whole writes. */
  open?(request: ArtifactOpenRequest): Promise<ArtifactStream>
  /** A file for another writer to fill directly, with no copy through this process. */
  reserve?(request: ArtifactOpenRequest): Promise<ArtifactReservation>
}

export interface ModelMessage {
  readonly role: 'system' | 'user' | 'assistant'
  readonly content: string
}
export interface ModelRequest {
  readonly messages: readonly ModelMessage[]
  readonly maxTokens?: number | undefined
}
export interface ModelResponse {
  readonly text: string
}
export interface ModelClient {
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>
}

/**
 * Services a tool handler may use. Later modules add their own fields by declaration
 * merging (`declare module '../contracts/ports.js' { interface ToolServices { fs: ... } }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ToolServices {}

/**
 * How a call was allowed, as far as writing goes: `none` when it ran unasked because it was
 * judged read-only (the classifier's fast path); `workspace` when a person approved it, or a
 * grant of theirs, a rule, a PreToolUse hook or bypassPermissions mode allowed it; `steering`
 * when a person approved a call that asked because it writes a file that steers the agent.
 */
export type WriteGrant = 'none' | 'workspace' | 'steering'

/** What a handler receives besides its input. */
export interface ToolCallContext {
  readonly callId: string
  readonly sessionId: string
  readonly turnId?: string | undefined
  readonly toolName: string
  readonly signal: AbortSignal
  readonly workspace?: string | undefined
  readonly permissionMode: PermissionMode
  /** `approved` when a person approved this very call (e.g. a path outside the workspace). */
  readonly permission: 'none' | 'approved'
  /**
   * Where a path outside the workspace led when its permission was given: by the person
   * asked, by a grant of theirs for the session, or by an allow rule. Only there may it reach.
   */
  readonly approvedTarget?: string | undefined
  /** What the call may write, by how it was allowed (see WriteGrant); Bash's sandbox follows it. */
  readonly writes?: WriteGrant | undefined
  /** Live output of a long call; becomes a ToolCallProgress event. */
  progress(data: Record<string, unknown>): void
  /** Present when a model is configured; always wrapped by the admission gate (R22). */
  readonly model?: ModelClient | undefined
  readonly artifacts?: ArtifactStore | undefined
  readonly services: Partial<ToolServices>
}

/** Per turn: who is asking, where events go, how the turn is aborted. */
export interface TurnContext {
  readonly sessionId: string
  readonly turnId?: string | undefined
  readonly scheduleId?: string | undefined
  readonly signal?: AbortSignal | undefined
  readonly emit?: EventSink | undefined
  readonly permissionMode?: PermissionMode | undefined
  readonly workspace?: string | undefined
  /** R18: no limit unless set. */
  readonly permissionTimeoutMs?: number | undefined
  /** Overrides the executor's broker for this turn (a session's own approval client). */
  readonly broker?: PermissionBroker | undefined
}

export interface BackgroundTask {
  readonly id: string
  readonly sessionId: string
  readonly description: string
  readonly done: Promise<unknown>
  cancel(reason?: string): void
}

export type { ToolExecutionResult }
