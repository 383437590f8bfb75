/** @module Records as the store keeps them; shared by storage and the service layer. */
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
}

/**
 * The storage port: every row toolexec keeps. Synchronous on purpose, on every backend: a
 * unit of work (`transaction`) runs without yielding, so a state change and its event commit
 * as one step and nothing else interleaves. Errors leave a store already mapped: a full disk
 * is a `ToolexecError('API_ERR_STORAGE_FULL')`-shaped error `isStorageFull` knows, a unique
 * violation a `StoreConflictError`, a lost database `API_ERR_STORAGE_UNAVAILABLE`.
 */
export interface Store {
  /**
   * Runs `fn` as one unit of work: its writes commit together or not at all; called inside another one, it is a savepoint.
   * A write refused inside a unit (a taken key) fails the innermost unit it is in, and may be reported only when that
   * unit ends or at its next read: a caller that handles a refusal and goes on runs that write in a unit of its own.
   */
  transaction<T>(fn: () => T): T
  /** Whether a unit of work is open: after a failure that ended the whole transaction (I/O, full disk, a refusal outside any savepoint) it may not be. */
  readonly inTransaction: boolean

  insertSession(session: SessionRecord): void
  getSession(id: string): SessionRecord | undefined
  /** The mode each call's permission check reads. */
  permissionModeOf(id: string): SessionRecord['permissionMode'] | undefined
  /** Newest first: up to `limit` sessions created before `before` (all when undefined). */
  sessionsBefore(before: SessionRecord | undefined, limit: number): SessionRecord[]
  sessionIds(): string[]
  sessionCounts(id: string): { schedules: number; calls: number; pendingPermissions: number }
  setPermissionMode(sessionId: string, mode: SessionRecord['permissionMode']): void
  /**
   * Deletes the session and every row of it, in one unit of work.
   * @returns the paths of its artifacts, whose files the caller removes once this committed
   */
  deleteSession(sessionId: string): string[]

  /** @throws StoreConflictError when a schedule of that id exists */
  insertSchedule(schedule: Omit<ScheduleRecord, 'arrival' | 'completedAt'>): void
  getSchedule(id: string): ScheduleRecord | undefined
  setScheduleStatus(id: string, status: ScheduleStatus, completedAt: string | null): void
  setScheduleGroups(id: string, groups: readonly (readonly string[])[]): void
  /** Marks the session's schedules not yet ended as aborted, so that a restart does not run what the abort cancelled. */
  markSchedulesAborted(sessionId: string, at: string): void
  scheduleAborted(id: string): boolean
  /** Oldest arrival first. */
  unfinishedSchedules(): ScheduleRecord[]
  hasUnfinishedSchedule(sessionId: string): boolean
  unfinishedScheduleIds(sessionId: string): string[]

  /** @throws StoreConflictError when a call of that id exists in the session */
  insertCall(call: NewCall): void
  markCallRunning(sessionId: string, id: string, resolvedInput: unknown, flags: ToolFlags, at: string): void
  setCallStatus(sessionId: string, id: string, status: CallRecordStatus): void
  /** The result is stored whole, once; its event carries the stream's copy. */
  completeCall(sessionId: string, result: ToolExecutionResult, at: string): void
  /** In position order. */
  callsOfSchedule(scheduleId: string): CallRow[]
  getCall(sessionId: string, id: string): CallRow | undefined
  /** Terminal records in the order the model saw them (R39). */
  history(sessionId: string): (CallRow & { turnId: string })[]
  /** Calls whose handler has started and that have no result yet. */
  runningCallCount(): number
  /** Calls whose handler has started and that have no result yet, by key. */
  runningCalls(): { sessionId: string; id: string }[]

  insertPermission(request: Omit<PermissionRow, 'status' | 'decidedBy' | 'message' | 'scope' | 'decidedAt'>): void
  decidePermission(id: string, decision: PermissionDecisionRecord): void
  getPermission(id: string): PermissionRow | undefined
  /** Oldest first; of one session when `sessionId` is given. */
  pendingPermissions(sessionId?: string): PermissionRow[]
  /** The call's latest permission request, pending or decided. */
  lastPermissionForCall(sessionId: string, callId: string): PermissionRow | undefined
  insertGrant(sessionId: string, toolName: string, ruleKey: string, at: string): void
  hasGrant(sessionId: string, toolName: string, ruleKey: string): boolean

  insertProjectRule(workspace: string, rule: string, at: string): void
  /** Oldest first. */
  projectRules(): ProjectRuleRecord[]
  projectRulesOf(workspace: string): string[]
  deleteProjectRule(id: string): boolean

  insertArtifact(ref: ArtifactRecord, at: string): void
  getArtifact(sessionId: string, id: string): (ArtifactRecord & { createdAt: string }) | undefined
  /** Bytes of the call's recorded artifacts. */
  artifactBytesOfCall(sessionId: string, callId: string): number
  /** Bytes of the session's recorded artifacts. */
  artifactBytesOfSession(sessionId: string): number

  /** @throws StoreConflictError when the session already has an event of that seq */
  insertEvent(event: StoredEvent, at: string): void
  /**
   * Up to `limit` events after `afterSeq`, in order; with `maxChars`, the page also ends after
   * the event that brings its data to that many characters (one event at least).
   */
  eventsAfter(sessionId: string, afterSeq: number, limit: number, maxChars?: number): StoredEvent[]
  /** 0 for a session with no events. */
  lastSeq(sessionId: string): number

  getTodos(sessionId: string): unknown
  setTodos(sessionId: string, todos: unknown, at: string): void

  /** Keeps the definition of an HTTP tool a client added, in place of one stored under its name before. */
  insertClientTool(name: string, definition: unknown, at: string): void
  deleteClientTool(name: string): boolean
  /** Definitions as stored, oldest first. */
  clientTools(): unknown[]

  /** Row counts of every table; tests use it to prove a rejected request wrote nothing. */
  rowCounts(): Record<string, number>
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
  /** A promise while commits should wait (SQLite's WAL being caught up); else undefined. */
  readonly commitGate: () => Promise<void> | undefined
  /** What is wrong with the database (damage, a lost connection), or undefined when it answers. */
  trouble(): StorageTrouble | undefined
  /** Remembers `error` when it says the database is damaged or gone; anything else is ignored. */
  noteFailure(error: unknown): void
  close(): void
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

/** True for an error that says the database cannot be reached now (API_ERR_STORAGE_UNAVAILABLE): it may answer again later. */
export function isStorageUnavailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'API_ERR_STORAGE_UNAVAILABLE'
}

/** True for an error that says the database is damaged (API_ERR_STORAGE_CORRUPT). */
export function isStorageDamage(error: unknown): boolean {
  return storageFailureOf(error) === 'damaged'
}
