/**
 * @module The ports the executor reaches the world through (R2). The executor is built once
 * with these; tests pass real implementations on temporary paths.
 */
import type { DecidedBy, EventSink, RiskLevel, RuleChoice } from './events.js'
import type { ToolFlags } from './flags.js'
import type { ToolEntry, ApprovalPreview } from './tool-entry.js'
import type { PermissionMode } from './tool-context.js'

export type {
  ArtifactCommit,
  ArtifactOpenRequest,
  ArtifactRef,
  ArtifactReservation,
  ArtifactStore,
  ArtifactStream,
  ArtifactWrite,
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  PermissionMode,
  ToolCallContext,
  ToolServices,
  WriteGrant,
} from './tool-context.js'
import type { ToolExecutionResult } from './result.js'

export interface Clock {
  /** Milliseconds; only differences are used. */
  now(): number
}

export interface ToolRegistry {
  get(name: string): ToolEntry | undefined
  list(): readonly ToolEntry[]
}

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
  /** The project rules an approval may add, `suggestedRule`'s first (rule-choices.ts). */
  readonly suggestedRules?: readonly RuleChoice[] | undefined
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
  readonly suggestedRules?: readonly RuleChoice[] | undefined
}

export interface PermissionAnswer {
  readonly decision: 'allow' | 'deny'
  readonly decidedBy: DecidedBy
  /** A deny message or allow reason; a deny's message reaches the model. */
  readonly message?: string | undefined
  readonly scope?: 'once' | 'session' | 'project' | undefined
  /** With scope `project`: the rules of the choice the person took (one of the request's `suggestedRules`); absent: `suggestedRule`. */
  readonly rules?: readonly string[] | undefined
  /** Who decided, when a person did through the HTTP API: the principal's id (a key's, `admin`, `local`) and name. */
  readonly decider?: { readonly id: string; readonly name: string } | undefined
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
  /** May read what a restart left of the call's request first; the ticket exists before the request is visible either way. */
  open(request: PermissionRequest): PermissionTicket | Promise<PermissionTicket>
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

export interface BackgroundTaskInfo {
  readonly id: string
  readonly sessionId: string
  readonly description: string
  readonly external: boolean
}

/**
 * The background tasks of a server: the executor's registry, shared with the tools that start,
 * read or stop them, which see it only through this port.
 */
export interface BackgroundTasks {
  track(task: BackgroundTask, external: boolean): BackgroundTaskInfo
  list(sessionId?: string): BackgroundTaskInfo[]
  get(id: string): BackgroundTask | undefined
  cancel(id: string, reason?: string): boolean
}

export type { ToolExecutionResult }
