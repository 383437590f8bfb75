/** @module Records as the store keeps them; shared by storage and the service layer. */
import type { Scope } from './access.js'
import type { AuditQuery, NewAuditEntry } from './audit.js'
import type { BackgroundTaskEnd, BackgroundTaskRecord, NewBackgroundTask } from './background-task-record.js'
import type { ClusterStore, SessionFence } from './cluster.js'
import type { CallRecordStatus, ScheduleStatus } from './api.js'
import type { ToolFlags } from './flags.js'
import type { PermissionMode } from './ports.js'
import type { ToolExecutionResult } from './result.js'
import type { SandboxSettingsBody } from './sandbox.js'
import type { ArtifactRef } from './tool-context.js'

export interface SessionRecord {
  readonly id: string
  readonly workspace: string
  readonly permissionMode: PermissionMode
  readonly interactive: boolean
  readonly permissionTimeoutMs: number | null
  /** The session's own sandbox settings, when it was given any. */
  readonly sandbox?: SandboxSettingsBody | undefined
  /** Four eyes: the principal that scheduled a call may not decide its approval. */
  readonly fourEyes?: boolean | undefined
  /** The name a person gave it, when one did. */
  readonly label?: string | undefined
  readonly createdAt: string
}

export interface ScheduleRecord {
  readonly id: string
  readonly sessionId: string
  readonly turnId: string
  readonly arrival: number
  readonly status: ScheduleStatus
  readonly groups: string[][]
  readonly createdAt: string
  readonly completedAt: string | null
}

export interface CallRow {
  readonly sessionId: string
  readonly id: string
  readonly scheduleId: string
  readonly position: number
  readonly name: string
  readonly input: unknown
  readonly dependsOn: string[] | undefined
  readonly resolvedInput: unknown
  readonly flags: ToolFlags | undefined
  readonly status: CallRecordStatus
  readonly startedAt: string | null
  readonly completedAt: string | null
  readonly result: ToolExecutionResult | undefined
}

export interface PermissionRow {
  readonly id: string
  readonly sessionId: string
  readonly callId: string
  readonly toolName: string
  readonly input: unknown
  readonly preview: unknown
  readonly riskLevel: 'low' | 'medium' | 'high'
  readonly reason: string
  readonly suggestedRule: string | null
  readonly status: 'pending' | 'allow' | 'deny'
  readonly decidedBy: string | null
  readonly message: string | null
  readonly scope: string | null
  readonly createdAt: string
  readonly decidedAt: string | null
  /** The principal that decided through POST /permissions/{id}: its id (a key's, `admin` or `local`) and name. */
  readonly deciderId: string | null
  readonly deciderName: string | null
}

export interface StoredEvent {
  readonly sessionId: string
  readonly seq: number
  readonly type: string
  /** The JSON line sent as the SSE `data:` field. */
  readonly data: string
}

/** A call as it is first recorded: queued, with no result. */
export interface NewCall extends Pick<CallRow, 'sessionId' | 'id' | 'scheduleId' | 'position' | 'name' | 'input'> {
  readonly dependsOn?: readonly string[] | undefined
  /** The principal (a key's id, `admin` or `local`) that scheduled it (ScheduleReads.scheduledBy). */
  readonly scheduledBy?: string | null | undefined
}

/** An artifact file as the store records it. */
export type ArtifactRecord = ArtifactRef

export interface ProjectRuleRecord {
  readonly id: string
  readonly workspace: string
  readonly rule: string
  readonly createdAt: string
}

export interface PermissionDecisionRecord {
  readonly status: 'allow' | 'deny'
  readonly decidedBy: string
  readonly message: string | null
  readonly scope: string | null
  readonly decidedAt: string
  readonly deciderId?: string | null
  readonly deciderName?: string | null
}

/** A permission request as it is first recorded: pending. */
export type NewPermission = Omit<PermissionRow, 'status' | 'decidedBy' | 'message' | 'scope' | 'decidedAt' | 'deciderId' | 'deciderName'>

/** A schedule as it is first recorded: its arrival is the session's next, and it has not ended. */
export type NewSchedule = Omit<ScheduleRecord, 'arrival' | 'completedAt'>

export interface SessionCounts {
  readonly schedules: number
  readonly calls: number
  readonly pendingPermissions: number
}

/**
 * The storage ports. Each role has its own: reads are asynchronous (on a network database
 * they are a round trip, and the event loop must never wait for one); writes are recorded
 * into a unit of work (`Store.commit`) and committed together.
 */
export interface SessionReads {
  get(id: string): Promise<SessionRecord | undefined>
  /** Newest first: up to `limit` sessions created before `before` (all when undefined). */
  page(before: SessionRecord | undefined, limit: number): Promise<SessionRecord[]>
  ids(): Promise<string[]>
  counts(id: string): Promise<SessionCounts>
  /** The session's todo list as TodoWrite last stored it; undefined before the first. */
  todos(id: string): Promise<unknown>
}

export interface SessionWrites {
  insert(session: SessionRecord): void
  setPermissionMode(id: string, mode: SessionRecord['permissionMode']): void
  /** null takes the label away. */
  setLabel(id: string, label: string | null): void
  setTodos(id: string, todos: unknown, at: string): void
  /** Deletes the session and every row of it (read its artifacts' paths first: the caller removes their files once this committed). */
  delete(id: string): void
}

export interface ScheduleReads {
  get(id: string): Promise<ScheduleRecord | undefined>
  /** Oldest arrival first, of every session. */
  unfinished(): Promise<ScheduleRecord[]>
  unfinishedIdsOf(sessionId: string): Promise<string[]>
  aborted(id: string): Promise<boolean>
  /** In position order. */
  calls(scheduleId: string): Promise<CallRow[]>
  call(sessionId: string, id: string): Promise<CallRow | undefined>
  /** The principal that scheduled the call; undefined when none was recorded. */
  scheduledBy(sessionId: string, callId: string): Promise<string | undefined>
  /** Terminal records in the order the model saw them (R39). */
  history(sessionId: string): Promise<(CallRow & { turnId: string })[]>
  /** Calls whose handler has started and that have no result yet, by key. */
  runningCalls(): Promise<{ sessionId: string; id: string }[]>
}

export interface ScheduleWrites {
  /** A schedule of that id taken fails the unit with StoreConflictError. */
  insert(schedule: NewSchedule): void
  setStatus(id: string, status: ScheduleStatus, completedAt: string | null): void
  setGroups(id: string, groups: readonly (readonly string[])[]): void
  /** Marks the session's schedules not yet ended as aborted, so that a restart does not run what the abort cancelled. */
  markAborted(sessionId: string, at: string): void
  /** A call of that id taken in the session fails the unit with StoreConflictError. */
  insertCall(call: NewCall): void
  markCallRunning(sessionId: string, id: string, resolvedInput: unknown, flags: ToolFlags, at: string): void
  setCallStatus(sessionId: string, id: string, status: CallRecordStatus): void
  /** The result is stored whole, once; its event carries the stream's copy. */
  completeCall(sessionId: string, result: ToolExecutionResult, at: string): void
}

export interface EventReads {
  /**
   * Up to `limit` events after `afterSeq`, in order; with `maxChars`, the page also ends after
   * the event that brings its data to that many characters (one event at least).
   */
  after(sessionId: string, afterSeq: number, limit: number, maxChars?: number): Promise<StoredEvent[]>
  /** 0 for a session with no events. */
  lastSeq(sessionId: string): Promise<number>
}

export interface EventWrites {
  /** An event of that seq taken in the session fails the unit with StoreConflictError. */
  insert(event: StoredEvent, at: string): void
}

export interface ApprovalReads {
  get(id: string): Promise<PermissionRow | undefined>
  /** Oldest first; of one session when `sessionId` is given. */
  pending(sessionId?: string): Promise<PermissionRow[]>
  /** The call's latest permission request, pending or decided. */
  lastForCall(sessionId: string, callId: string): Promise<PermissionRow | undefined>
  /** The session of a request whose session was deleted (its row is gone, its id kept); undefined for any other id. */
  closedSession(id: string): Promise<string | undefined>
  hasGrant(sessionId: string, toolName: string, ruleKey: string): Promise<boolean>
}

export interface ApprovalWrites {
  /** A request of that id already recorded (re-opened after a restart) is kept as it is. */
  insert(request: NewPermission): void
  /** Decides a pending request; one already decided keeps its decision (the first answer wins). */
  decide(id: string, decision: PermissionDecisionRecord): void
  /** Grants the request's tool and rule key (its suggested rule, else its tool) to its session. */
  grantFor(permissionId: string, at: string): void
  insertGrant(sessionId: string, toolName: string, ruleKey: string, at: string): void
}

export interface RuleReads {
  /** Oldest first. */
  projectRules(): Promise<ProjectRuleRecord[]>
  projectRulesOf(workspace: string): Promise<string[]>
  /** Definitions as stored, oldest first. */
  clientTools(): Promise<unknown[]>
}

export interface RuleWrites {
  insertProjectRule(workspace: string, rule: string, at: string): void
  /**
   * `rule` (else the request's suggested rule, else its tool) as an allow rule of the request's
   * session's workspace. Returns the new rule's id (no rule is added when the workspace has that rule already).
   */
  projectRuleFor(permissionId: string, at: string, rule?: string): string
  deleteProjectRule(id: string): void
  /** Keeps the definition of an HTTP tool a client added, in place of one stored under its name before. */
  putClientTool(name: string, definition: unknown, at: string): void
  deleteClientTool(name: string): void
}

export interface ArtifactReads {
  get(sessionId: string, id: string): Promise<(ArtifactRecord & { createdAt: string }) | undefined>
  /** Bytes of the call's recorded artifacts. */
  bytesOfCall(sessionId: string, callId: string): Promise<number>
  /** Bytes of the session's recorded artifacts. */
  bytesOfSession(sessionId: string): Promise<number>
  /** Paths of the session's artifact files. */
  pathsOfSession(sessionId: string): Promise<string[]>
}

export interface ArtifactWrites {
  /** An artifact of that id taken in the session fails the unit with StoreConflictError. */
  insert(ref: ArtifactRecord, at: string): void
}

export interface BackgroundTaskReads {
  get(sessionId: string, id: string): Promise<BackgroundTaskRecord | undefined>
  /** Tasks recorded as running: of one session, or of every session when `sessionId` is undefined; oldest first. */
  running(sessionId?: string): Promise<BackgroundTaskRecord[]>
  /** Output files the session's tasks name (a lost task's partial output among them), to remove with the session. */
  outputPathsOf(sessionId: string): Promise<string[]>
}

export interface BackgroundTaskWrites {
  /** A task of that id taken in the session fails the unit with StoreConflictError. */
  insert(task: NewBackgroundTask): void
  /** Records how it ended, whatever was recorded before (a task found lost that ended after all ended). */
  end(sessionId: string, id: string, end: BackgroundTaskEnd): void
  /** Marks a task still recorded as running as lost; an ended one keeps its end. */
  markLost(sessionId: string, id: string, at: string): void
}

/** An API key as kept: its secret only as the SHA-256 of it (hex), which is what a request's bearer is looked up by. */
export interface KeyRecord {
  readonly id: string
  readonly name: string
  readonly secretHash: string
  readonly role: string | null
  readonly scopes: readonly Scope[]
  readonly sessions: readonly string[] | null
  readonly workspaces: readonly string[] | null
  readonly expiresAt: string | null
  readonly createdAt: string
  readonly createdBy: string
  readonly revokedAt: string | null
}

export interface KeyReads {
  get(id: string): Promise<KeyRecord | undefined>
  /** The key whose secret hashes to `secretHash`, revoked or not. */
  bySecretHash(secretHash: string): Promise<KeyRecord | undefined>
  /** Oldest first, revoked ones too. */
  list(): Promise<KeyRecord[]>
}

export interface KeyWrites {
  /** A key of that id or secret hash taken fails the unit with StoreConflictError. */
  insert(key: Omit<KeyRecord, 'revokedAt'>): void
  /** Marks the key revoked at `at`; one revoked before keeps its time. */
  revoke(id: string, at: string): void
  /** Marks every short-lived link to the session revoked at `at` (the session is deleted: a new one of its id is another). */
  revokeLinksOf(sessionId: string, at: string): void
}

/** An audit entry as stored: its detail as the JSON text kept, which its hash covers. */
export interface AuditRecord {
  readonly seq: number
  readonly at: string
  readonly kind: string
  readonly actor: { readonly id: string; readonly name: string }
  readonly sessionId: string | null
  readonly detailJson: string
  readonly prevHash: string
  readonly hash: string
}

export interface AuditReads {
  /** Oldest first: up to `query.limit` entries after the seq `query.after` that pass its filters. */
  page(query: AuditQuery): Promise<AuditRecord[]>
}

export interface AuditWrites {
  /**
   * Appends the entry after the last one committed, chained to it: the database gives it the
   * next seq and its hash. Appended with the change it records, it exists if and only if that
   * change committed. Entries are never changed or removed (the tables refuse it).
   */
  append(entry: NewAuditEntry): void
}

/** The writes of one unit of work, by role; recorded in order, committed together or not at all. */
export interface UnitOfWork {
  readonly sessions: SessionWrites
  readonly schedules: ScheduleWrites
  readonly events: EventWrites
  readonly approvals: ApprovalWrites
  readonly rules: RuleWrites
  readonly artifacts: ArtifactWrites
  readonly tasks: BackgroundTaskWrites
  readonly keys: KeyWrites
  readonly audit: AuditWrites
}

/**
 * Every row toolexec keeps, by role. A unit of work is built synchronously (`build` records
 * writes and reads nothing: what it needs is read before) and committed as one step, on a
 * network database in one round trip; the returned promise settles once it is durable. Units
 * not yet settled may commit in any order (a network backend commits them on several
 * connections at once): a caller that needs an order awaits one before the next, as the
 * event journal does for each session. Errors are already mapped: a full disk is an error
 * `isStorageFull` knows, a unique key refused a `StoreConflictError`, a lost database
 * `API_ERR_STORAGE_UNAVAILABLE`; `build` throwing rejects the promise and writes nothing.
 */
export interface Store {
  readonly sessions: SessionReads
  readonly schedules: ScheduleReads
  readonly events: EventReads
  readonly approvals: ApprovalReads
  readonly rules: RuleReads
  readonly artifacts: ArtifactReads
  readonly tasks: BackgroundTaskReads
  readonly keys: KeyReads
  readonly audit: AuditReads
  commit<T>(build: (unit: UnitOfWork) => T): Promise<T>
}

/** A write a unique key refused (a schedule, call or event id taken). Thrown by every backend alike. */
export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError'
  readonly code = 'STORE_CONFLICT'
}

/** Why the database cannot serve: damaged (its operator must restore it) or not answering (it may come back). */
export interface StorageTrouble {
  readonly code: 'API_ERR_STORAGE_CORRUPT' | 'API_ERR_STORAGE_UNAVAILABLE'
  readonly reason: string
}

/** What a backend gives the runtime besides the store. */
export interface OpenedStore {
  readonly store: Store
  /** Which backend this is, for logs and /healthz. */
  readonly backend: 'sqlite' | 'postgres'
  /** The servers sharing the database and who runs which session; one that owns everything on SQLite. */
  readonly cluster: ClusterStore
  /** From now on every unit of work is checked against this node's leases (a no-op where the cluster is solo). */
  fence(fence: SessionFence): void
  /** A promise while commits should wait (SQLite's WAL being caught up); else undefined. */
  readonly commitGate: () => Promise<void> | undefined
  /** What is wrong with the database (damage, a lost connection), or undefined when it answers. */
  trouble(): Promise<StorageTrouble | undefined>
  /** Remembers `error` when it says the database is damaged or gone; anything else is ignored. */
  noteFailure(error: unknown): void
  /** Ends the connection (PostgreSQL) or closes the file (SQLite); the store answers nothing after. */
  close(): Promise<void>
}

/**
 * What an error a backend threw says of the storage itself: `full` for a write refused for
 * want of space, `damaged` for a database that needs its operator. Each backend marks its
 * own errors with it (a property of this key), so that the layers above tell them apart
 * without knowing the backend.
 */
export const STORAGE_FAILURE: unique symbol = Symbol.for('toolexec.storage-failure')
export type StorageFailure = 'full' | 'damaged'

export function storageFailureOf(error: unknown): StorageFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const failure = (error as { [STORAGE_FAILURE]?: unknown })[STORAGE_FAILURE]
  return failure === 'full' || failure === 'damaged' ? failure : undefined
}

/** A write a backend refused for want of space, for a backend whose own errors cannot carry the mark. */
export class StoreFullError extends Error {
  override readonly name = 'StoreFullError'
  readonly code = 'STORE_FULL'
  readonly [STORAGE_FAILURE] = 'full' as const
}

// The file system's own words for want of space: an artifact or the space reserve meets them.
const NO_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT'])

/** True for an error that a write failing for want of space raises, on any backend or file. */
export function isStorageFull(error: unknown): boolean {
  if (storageFailureOf(error) === 'full') return true
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && NO_SPACE_CODES.has(code)
}

/**
 * The cause a backend gives API_ERR_STORAGE_UNAVAILABLE when the connection was lost after a
 * write was sent: the database may have committed it, its answer lost with the connection.
 */
export class CommitUnknownError extends Error {
  override readonly name = 'CommitUnknownError'
}

/** True for a failure that may hide a commit (its cause is a CommitUnknownError). */
export function mayHaveCommitted(error: unknown): boolean {
  return isStorageUnavailable(error) && (error as { cause?: unknown }).cause instanceof CommitUnknownError
}

/** True for an error that says the database cannot be reached now (API_ERR_STORAGE_UNAVAILABLE): it may answer again later. */
export function isStorageUnavailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'API_ERR_STORAGE_UNAVAILABLE'
}

/** True for an error that says the database is damaged (API_ERR_STORAGE_CORRUPT). */
export function isStorageDamage(error: unknown): boolean {
  return storageFailureOf(error) === 'damaged'
}
