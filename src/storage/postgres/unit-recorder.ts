/**
 * @module A unit of work as the PostgreSQL store records it: each write becomes its statement,
 * in the order it was made, and nothing reaches the database until the unit is committed whole.
 */
import type { ApprovalWrites, ArtifactWrites, EventWrites, RuleWrites, ScheduleWrites, SessionWrites, UnitOfWork } from '../../contracts/store.js'
import { json, SESSION_DELETIONS } from '../rows.js'
import { statement, type Statement, type StatementKey } from './statements.js'

export interface RecordedUnit<T> {
  readonly value: T
  readonly statements: readonly Statement[]
  /** Whether it writes rows that the store's caches keep. */
  readonly writesSessions: boolean
  readonly writesProjectRules: boolean
}

type Write = (key: StatementKey, ...values: unknown[]) => void

/** Runs `build` against writers that only record; what `build` throws is thrown here and nothing is recorded. */
export function recordUnit<T>(build: (unit: UnitOfWork) => T): RecordedUnit<T> {
  const statements: Statement[] = []
  const touched = { sessions: false, projectRules: false }
  const write: Write = (key, ...values) => void statements.push(statement(key, ...values))
  const unit: UnitOfWork = {
    sessions: sessionWrites(write, () => (touched.sessions = true)),
    schedules: scheduleWrites(write),
    events: eventWrites(write),
    approvals: approvalWrites(write),
    rules: ruleWrites(write, () => (touched.projectRules = true)),
    artifacts: artifactWrites(write),
  }
  const value = build(unit)
  return { value, statements, writesSessions: touched.sessions, writesProjectRules: touched.projectRules }
}

function sessionWrites(write: Write, touch: () => void): SessionWrites {
  return {
    insert(session) {
      touch()
      write('insertSession', session.id, session.workspace, session.permissionMode, session.interactive ? 1 : 0, session.permissionTimeoutMs, session.createdAt)
      if (session.sandbox !== undefined) write('insertSessionSandbox', session.id, JSON.stringify(session.sandbox))
    },
    setPermissionMode(id, mode) {
      touch()
      write('setPermissionMode', mode, id)
    },
    setTodos: (id, todos, at) => write('setTodos', id, JSON.stringify(todos), at),
    delete(id) {
      touch()
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
    insertCall: (call) => write('insertCall', call.sessionId, call.id, call.scheduleId, call.position, call.name, JSON.stringify(call.input ?? null), json(call.dependsOn)),
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
    insert: (request) =>
      write(
        'insertPermission',
        request.id,
        request.sessionId,
        request.callId,
        request.toolName,
        JSON.stringify(request.input ?? null),
        json(request.preview),
        request.riskLevel,
        request.reason,
        request.suggestedRule,
        request.createdAt,
      ),
    decide: (id, decision) => write('decidePermission', decision.status, decision.decidedBy, decision.message, decision.scope, decision.decidedAt, id),
    grantFor: (permissionId, at) => write('grantFor', permissionId, at),
    insertGrant: (sessionId, toolName, ruleKey, at) => write('insertGrant', sessionId, toolName, ruleKey, at),
  }
}

function ruleWrites(write: Write, touch: () => void): RuleWrites {
  const writeRules: Write = (key, ...values) => {
    touch()
    write(key, ...values)
  }
  return {
    insertProjectRule: (workspace, rule, at) => writeRules('insertProjectRule', newRuleId(), workspace, rule, at),
    projectRuleFor: (permissionId, at) => writeRules('projectRuleFor', newRuleId(), permissionId, at),
    deleteProjectRule: (id) => writeRules('deleteProjectRule', id),
    putClientTool: (name, definition, at) => write('insertClientTool', name, JSON.stringify(definition), at),
    deleteClientTool: (name) => write('deleteClientTool', name),
  }
}

function artifactWrites(write: Write): ArtifactWrites {
  return {
    insert: (ref, at) => write('insertArtifact', ref.id, ref.sessionId, ref.callId, ref.path, ref.uri, ref.bytes, ref.mediaType, ref.retention, ref.sha256, at),
  }
}

const newRuleId = (): string => `rule_${crypto.randomUUID()}`
