/**
 * @module What a tool's handler is given besides its input (ToolCallContext) and the ports it
 * may reach through it: artifacts, the model, the services of the server. Both the tool entry
 * and the executor's ports build on it; it imports neither.
 */
import { Type, type Static } from '@sinclair/typebox'

export const RetentionSchema = Type.Union([Type.Literal('session'), Type.Literal('project'), Type.Literal('temporary')], { $id: 'Retention' })
export type Retention = Static<typeof RetentionSchema>

export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions'

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
 * merging (`declare module '../contracts/tool-context.js' { interface ToolServices { fs: ... } }`).
 */
// Empty on purpose: the root that the modules' declarations merge into.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
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
