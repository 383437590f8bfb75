/** @module Raw SQLite rows to records: JSON columns parsed, flags turned back into booleans. */
import type { CallRecordStatus, ScheduleStatus } from '../contracts/api.js'
import type { ToolFlags } from '../contracts/flags.js'
import type { PermissionMode } from '../contracts/ports.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import type { SandboxSettingsBody } from '../contracts/sandbox.js'
import type { Scope } from '../contracts/access.js'
import type { BackgroundTaskRecord, BackgroundTaskStatus } from '../contracts/background-task-record.js'
import type { ArtifactRecord, AuditRecord, CallRow, KeyRecord, PermissionRow, ScheduleRecord, SessionRecord } from '../contracts/store.js'

export type RawRow = Record<string, unknown>

function parsed<T>(value: unknown): T | undefined {
  return typeof value === 'string' ? (JSON.parse(value) as T) : undefined
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)

export function toSessionRecord(row: RawRow): SessionRecord {
  return {
    id: String(row.id),
    workspace: String(row.workspace),
    permissionMode: row.permission_mode as PermissionMode,
    interactive: row.interactive === 1,
    permissionTimeoutMs: typeof row.permission_timeout_ms === 'number' ? row.permission_timeout_ms : null,
    sandbox: parsed<SandboxSettingsBody>(row.sandbox_json),
    ...(Number(row.four_eyes) === 1 ? { fourEyes: true } : {}),
    ...(typeof row.label === 'string' ? { label: row.label } : {}),
    createdAt: String(row.created_at),
  }
}

export function toScheduleRecord(row: RawRow): ScheduleRecord {
  return {
    id: String(row.id),
    sessionId: String(row.session_id),
    turnId: String(row.turn_id),
    arrival: Number(row.arrival),
    status: row.status as ScheduleStatus,
    groups: parsed<string[][]>(row.groups_json) ?? [],
    createdAt: String(row.created_at),
    completedAt: text(row.completed_at),
  }
}

export function toCallRow(row: RawRow): CallRow {
  const input = parsed<unknown>(row.input_json)
  return {
    sessionId: String(row.session_id),
    id: String(row.id),
    scheduleId: String(row.schedule_id),
    position: Number(row.position),
    name: String(row.name),
    input,
    dependsOn: parsed<string[]>(row.depends_on_json),
    resolvedInput: resolvedInputOf(row, input),
    flags: parsed<ToolFlags>(row.flags_json),
    status: row.status as CallRecordStatus,
    startedAt: text(row.started_at),
    completedAt: text(row.completed_at),
    result: parsed<ToolExecutionResult>(row.result_json),
  }
}

/** A started call with no resolved input stored resolved its input to itself (markCallRunning). */
function resolvedInputOf(row: RawRow, input: unknown): unknown {
  if (typeof row.resolved_input_json === 'string') return parsed<unknown>(row.resolved_input_json)
  return typeof row.started_at === 'string' ? input : undefined
}

export function toPermissionRow(row: RawRow): PermissionRow {
  return {
    id: String(row.id),
    sessionId: String(row.session_id),
    callId: String(row.call_id),
    toolName: String(row.tool_name),
    input: parsed<unknown>(row.input_json),
    preview: parsed<unknown>(row.preview_json),
    riskLevel: row.risk_level as PermissionRow['riskLevel'],
    reason: String(row.reason),
    suggestedRule: text(row.suggested_rule),
    status: row.status as PermissionRow['status'],
    decidedBy: text(row.decided_by),
    message: text(row.message),
    scope: text(row.scope),
    createdAt: String(row.created_at),
    decidedAt: text(row.decided_at),
    deciderId: text(row.decider_id),
    deciderName: text(row.decider_name),
  }
}

/** Every table of the store, as rowCounts tells them. */
export const STORE_TABLES = [
  'sessions',
  'schedules',
  'tool_calls',
  'permission_requests',
  'session_grants',
  'artifacts',
  'events',
  'todos',
  'project_rules',
  'client_http_tools',
  'schedule_aborts',
  'session_sandbox',
  'background_tasks',
  'api_keys',
  'audit_log',
  'closed_permissions',
  'session_four_eyes',
  'call_schedulers',
  'permission_deciders',
  'session_labels',
] as const

export function toKeyRecord(row: RawRow): KeyRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    secretHash: String(row.secret_hash),
    role: text(row.role),
    scopes: parsed<Scope[]>(row.scopes_json) ?? [],
    sessions: parsed<string[]>(row.sessions_json) ?? null,
    workspaces: parsed<string[]>(row.workspaces_json) ?? null,
    expiresAt: text(row.expires_at),
    createdAt: String(row.created_at),
    createdBy: String(row.created_by),
    revokedAt: text(row.revoked_at),
  }
}

export function toAuditRecord(row: RawRow): AuditRecord {
  return {
    // BIGINT on PostgreSQL, which node-postgres reads as text.
    seq: Number(row.seq),
    at: String(row.at),
    kind: String(row.kind),
    actor: { id: String(row.actor_id), name: String(row.actor_name) },
    sessionId: text(row.session_id),
    detailJson: String(row.detail_json),
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
  }
}

export function toArtifactRecord(row: RawRow): ArtifactRecord & { createdAt: string } {
  return {
    id: String(row.id),
    sessionId: String(row.session_id),
    callId: String(row.call_id),
    path: String(row.path),
    uri: String(row.uri),
    bytes: Number(row.bytes),
    mediaType: String(row.media_type),
    retention: row.retention as ArtifactRecord['retention'],
    sha256: String(row.sha256),
    createdAt: String(row.created_at),
  }
}

export function toBackgroundTaskRecord(row: RawRow): BackgroundTaskRecord {
  return {
    sessionId: String(row.session_id),
    id: String(row.id),
    callId: String(row.call_id),
    command: String(row.command),
    description: String(row.description),
    nodeId: String(row.node_id),
    outputPath: text(row.output_path),
    status: row.status as BackgroundTaskStatus,
    exitCode: row.exit_code === null || row.exit_code === undefined ? null : Number(row.exit_code),
    startedAt: String(row.started_at),
    endedAt: text(row.ended_at),
  }
}

/** A JSON column that may be absent: null for undefined. */
export const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))

/** The statements that delete a session, each backend's under the same key; rows that refer to others go first (foreign keys). */
export const SESSION_DELETIONS = [
  'closeSessionPermissions',
  'deleteSessionFourEyes',
  'deleteSessionLabel',
  'deleteSessionCallSchedulers',
  'deleteSessionDeciders',
  'deleteSessionCalls',
  'deleteSessionPermissions',
  'deleteSessionGrants',
  'deleteSessionTodos',
  'deleteSessionSandbox',
  'deleteSessionArtifacts',
  'deleteSessionEvents',
  'deleteSessionScheduleAborts',
  'deleteSessionBackgroundTasks',
  'deleteSessionSchedules',
  'deleteSessionRow',
] as const
