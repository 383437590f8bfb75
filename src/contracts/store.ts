/** @module Records as the store keeps them; shared by storage and the service layer. */
import type { CallRecordStatus, ScheduleStatus } from './api.js'
import type { ToolFlags } from './flags.js'
import type { PermissionMode } from './ports.js'
import type { ToolExecutionResult } from './result.js'
import type { SandboxSettingsBody } from './sandbox.js'

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
