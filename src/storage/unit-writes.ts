/**
 * @module A unit of work's writes as statements, the same on both backends: each write names
 * its statement (a key both backends' statement tables have, taking its values in this order)
 * and says which cached rows it changes. A backend runs them at once (SQLite) or records them
 * to send whole (PostgreSQL).
 */
import type { ApprovalWrites, ArtifactWrites, AuditWrites, BackgroundTaskWrites, EventWrites, KeyWrites, RuleWrites, ScheduleWrites, SessionWrites, UnitOfWork } from '../contracts/store.js'
import { newEntryBody } from './audit-chain.js'
import { json, SESSION_DELETIONS } from './rows.js'

export type WriteKey =
  | 'insertSession'
  | 'insertSessionSandbox'
  | 'insertSessionFourEyes'
  | 'setSessionLabel'
  | 'insertCallScheduler'
  | 'decidePermissionBy'
  | 'setPermissionMode'
  | 'setTodos'
  | (typeof SESSION_DELETIONS)[number]
  | 'insertSchedule'
  | 'setScheduleStatus'
  | 'setScheduleGroups'
  | 'markSchedulesAborted'
  | 'insertCall'
  | 'markCallRunning'
  | 'setCallStatus'
  | 'completeCall'
  | 'insertEvent'
  | 'insertPermission'
  | 'decidePermission'
  | 'grantFor'
  | 'insertGrant'
  | 'insertProjectRule'
  | 'projectRuleFor'
  | 'deleteProjectRule'
  | 'putClientTool'
  | 'deleteClientTool'
  | 'insertArtifact'
  | 'insertBackgroundTask'
  | 'endBackgroundTask'
  | 'markBackgroundTaskLost'
  | 'insertKey'
  | 'revokeKey'
  | 'revokeSessionLinks'
  | 'appendAudit'

export type Write = (key: WriteKey, ...values: unknown[]) => void

/** What a backend caches of the rows a write changes: told before the write, so nothing stale is kept. */
export interface CachedRows {
  session(id: string): void
  /** A rule written for one request may land in any workspace: all are read again. */
  projectRules(): void
}

export function unitWrites(write: Write, cached: CachedRows): UnitOfWork {
  return {
    sessions: sessionWrites(write, cached),
    schedules: scheduleWrites(write),
    events: eventWrites(write),
    approvals: approvalWrites(write),
    rules: ruleWrites(write, cached),
    artifacts: artifactWrites(write),
    tasks: taskWrites(write),
    keys: keyWrites(write),
    audit: auditWrites(write),
  }
}

function sessionWrites(write: Write, cached: CachedRows): SessionWrites {
  return {
    insert(session) {
      cached.session(session.id)
      write('insertSession', session.id, session.workspace, session.permissionMode, session.interactive ? 1 : 0, session.permissionTimeoutMs, session.createdAt)
      if (session.fourEyes === true) write('insertSessionFourEyes', session.id)
      if (session.sandbox !== undefined) write('insertSessionSandbox', session.id, JSON.stringify(session.sandbox))
      if (session.label !== undefined) write('setSessionLabel', session.id, session.label)
    },
    setLabel(id, label) {
      cached.session(id)
      if (label === null) write('deleteSessionLabel', id)
      else write('setSessionLabel', id, label)
    },
    setPermissionMode(id, mode) {
      cached.session(id)
      write('setPermissionMode', mode, id)
    },
    setTodos: (id, todos, at) => write('setTodos', id, JSON.stringify(todos), at),
    delete(id) {
      cached.session(id)
      for (const key of SESSION_DELETIONS) write(key, id)
    },
  }
}

function scheduleWrites(write: Write): ScheduleWrites {
  return {
    insert: (schedule) => write('insertSchedule', schedule.id, schedule.sessionId, schedule.turnId, schedule.status, JSON.stringify(schedule.groups), schedule.createdAt),
    setStatus: (id, status, completedAt) => write('setScheduleStatus', status, completedAt, id),
    setGroups: (id, groups) => write('setScheduleGroups', JSON.stringify(groups), id),
    markAborted: (sessionId, at) => write('markSchedulesAborted', at, sessionId),
    insertCall(call) {
      write('insertCall', call.sessionId, call.id, call.scheduleId, call.position, call.name, JSON.stringify(call.input ?? null), json(call.dependsOn))
      if (call.scheduledBy !== undefined && call.scheduledBy !== null) write('insertCallScheduler', call.sessionId, call.id, call.scheduledBy)
    },
    markCallRunning: (sessionId, id, resolvedInput, flags, at) => write('markCallRunning', json(resolvedInput), JSON.stringify(flags), at, sessionId, id),
    setCallStatus: (sessionId, id, status) => write('setCallStatus', status, sessionId, id),
    completeCall: (sessionId, result, at) => write('completeCall', result.status, at, JSON.stringify(result), sessionId, result.callId),
  }
}

function eventWrites(write: Write): EventWrites {
  return { insert: (event, at) => write('insertEvent', event.sessionId, event.seq, event.type, at, event.data) }
}

function approvalWrites(write: Write): ApprovalWrites {
  return {
    insert(request) {
      const { id, sessionId, callId, toolName, input, preview, riskLevel, reason, suggestedRule, createdAt } = request
      write('insertPermission', id, sessionId, callId, toolName, JSON.stringify(input ?? null), json(preview), riskLevel, reason, suggestedRule, createdAt)
    },
    decide(id, decision) {
      if (decision.deciderId !== undefined && decision.deciderId !== null) write('decidePermissionBy', decision.deciderId, decision.deciderName ?? '', id)
      write('decidePermission', decision.status, decision.decidedBy, decision.message, decision.scope, decision.decidedAt, id)
    },
    grantFor: (permissionId, at) => write('grantFor', permissionId, at),
    insertGrant: (sessionId, toolName, ruleKey, at) => write('insertGrant', sessionId, toolName, ruleKey, at),
  }
}

function ruleWrites(write: Write, cached: CachedRows): RuleWrites {
  const writeRules: Write = (key, ...values) => {
    cached.projectRules()
    write(key, ...values)
  }
  return {
    insertProjectRule: (workspace, rule, at) => writeRules('insertProjectRule', newRuleId(), workspace, rule, at),
    projectRuleFor(permissionId, at, rule) {
      const id = newRuleId()
      writeRules('projectRuleFor', id, permissionId, at, rule ?? null)
      return id
    },
    deleteProjectRule: (id) => writeRules('deleteProjectRule', id),
    putClientTool: (name, definition, at) => write('putClientTool', name, JSON.stringify(definition), at),
    deleteClientTool: (name) => write('deleteClientTool', name),
  }
}

function artifactWrites(write: Write): ArtifactWrites {
  return {
    insert: (ref, at) => write('insertArtifact', ref.id, ref.sessionId, ref.callId, ref.path, ref.uri, ref.bytes, ref.mediaType, ref.retention, ref.sha256, at),
  }
}

function taskWrites(write: Write): BackgroundTaskWrites {
  return {
    insert: (task) => write('insertBackgroundTask', task.sessionId, task.id, task.callId, task.command, task.description, task.nodeId, task.outputPath, task.startedAt),
    end: (sessionId, id, end) => write('endBackgroundTask', end.status, end.exitCode, end.outputPath, end.endedAt, sessionId, id),
    markLost: (sessionId, id, at) => write('markBackgroundTaskLost', at, sessionId, id),
  }
}

function keyWrites(write: Write): KeyWrites {
  return {
    insert(key) {
      const { id, name, secretHash, role, scopes, sessions, workspaces, expiresAt, createdAt, createdBy } = key
      write('insertKey', id, name, secretHash, role, JSON.stringify(scopes), json(sessions ?? undefined), json(workspaces ?? undefined), expiresAt, createdAt, createdBy)
    },
    revoke: (id, at) => write('revokeKey', at, id),
    revokeLinksOf: (sessionId, at) => write('revokeSessionLinks', at, JSON.stringify([sessionId])),
  }
}

/** The database chains the entry (seq, prev_hash, hash) from the body given, the canonical text of everything else. */
function auditWrites(write: Write): AuditWrites {
  return {
    append(entry) {
      const detailJson = JSON.stringify(entry.detail)
      write('appendAudit', entry.at, entry.kind, entry.actor.id, entry.actor.name, entry.sessionId, detailJson, newEntryBody(entry, detailJson))
    },
  }
}

const newRuleId = (): string => `rule_${crypto.randomUUID()}`
