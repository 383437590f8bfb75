/**
 * @module The store's writes on SQLite, by role: a unit of work whose writers run their
 * statements at once, inside the transaction SqliteStore.commit holds open while its build runs.
 */
import type Database from 'better-sqlite3'
import type { CallRecordStatus, ScheduleStatus } from '../../contracts/api.js'
import type { ToolFlags } from '../../contracts/flags.js'
import type { ToolExecutionResult } from '../../contracts/result.js'
import type {
  ApprovalWrites,
  ArtifactRecord,
  ArtifactWrites,
  EventWrites,
  NewCall,
  NewPermission,
  NewSchedule,
  PermissionDecisionRecord,
  RuleWrites,
  ScheduleWrites,
  SessionRecord,
  SessionWrites,
  StoredEvent,
  UnitOfWork,
} from '../../contracts/store.js'
import { json, SESSION_DELETIONS } from '../rows.js'
import type { CommittedCache } from './committed-cache.js'
import { conflictOr } from './sqlite-errors.js'
import type { Statements } from './statements.js'

/**
 * Runs a unit's statements, only while its build runs: a writer kept and called later would
 * write outside any transaction. The first statement that fails fails the whole unit, even
 * when the build caught its error and went on.
 */
class UnitStatements {
  #open = false
  #failure: { readonly error: unknown } | undefined = undefined

  get open(): boolean {
    return this.#open
  }

  run(statement: Database.Statement, ...params: unknown[]): void {
    if (!this.#open) throw new Error('a unit of work writes only while its build runs: record every write inside the function given to commit')
    try {
      statement.run(...params)
    } catch (error) {
      const mapped = conflictOr(error)
      this.#failure ??= { error: mapped }
      throw mapped
    }
  }

  during<T>(work: () => T): T {
    this.#open = true
    this.#failure = undefined
    try {
      const value = work()
      this.#throwFailure()
      return value
    } finally {
      this.#open = false
    }
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure.error
  }
}

class SqliteSessionWrites implements SessionWrites {
  readonly #unit: UnitStatements
  readonly #s: Statements
  readonly #cache: CommittedCache

  constructor(unit: UnitStatements, statements: Statements, cache: CommittedCache) {
    this.#unit = unit
    this.#s = statements
    this.#cache = cache
  }

  insert(session: SessionRecord): void {
    this.#cache.forgetSession(session.id)
    this.#unit.run(this.#s.insertSession, session.id, session.workspace, session.permissionMode, session.interactive ? 1 : 0, session.permissionTimeoutMs, session.createdAt)
    if (session.sandbox !== undefined) this.#unit.run(this.#s.insertSessionSandbox, session.id, JSON.stringify(session.sandbox))
  }

  setPermissionMode(id: string, mode: SessionRecord['permissionMode']): void {
    this.#cache.forgetSession(id)
    this.#unit.run(this.#s.setPermissionMode, mode, id)
  }

  setTodos(id: string, todos: unknown, at: string): void {
    this.#unit.run(this.#s.setTodos, id, JSON.stringify(todos), at)
  }

  delete(id: string): void {
    this.#cache.forgetSession(id)
    for (const statement of SESSION_DELETIONS) this.#unit.run(this.#s[statement], id)
  }
}

class SqliteScheduleWrites implements ScheduleWrites {
  readonly #unit: UnitStatements
  readonly #s: Statements

  constructor(unit: UnitStatements, statements: Statements) {
    this.#unit = unit
    this.#s = statements
  }

  insert(schedule: NewSchedule): void {
    this.#unit.run(this.#s.insertSchedule, schedule.id, schedule.sessionId, schedule.turnId, schedule.sessionId, schedule.status, JSON.stringify(schedule.groups), schedule.createdAt)
  }

  setStatus(id: string, status: ScheduleStatus, completedAt: string | null): void {
    this.#unit.run(this.#s.setScheduleStatus, status, completedAt, id)
  }

  setGroups(id: string, groups: readonly (readonly string[])[]): void {
    this.#unit.run(this.#s.setScheduleGroups, JSON.stringify(groups), id)
  }

  markAborted(sessionId: string, at: string): void {
    this.#unit.run(this.#s.markSchedulesAborted, at, sessionId)
  }

  insertCall(call: NewCall): void {
    this.#unit.run(this.#s.insertCall, call.sessionId, call.id, call.scheduleId, call.position, call.name, JSON.stringify(call.input ?? null), json(call.dependsOn))
  }

  markCallRunning(sessionId: string, id: string, resolvedInput: unknown, flags: ToolFlags, at: string): void {
    this.#unit.run(this.#s.markCallRunning, json(resolvedInput), JSON.stringify(flags), at, sessionId, id)
  }

  setCallStatus(sessionId: string, id: string, status: CallRecordStatus): void {
    this.#unit.run(this.#s.setCallStatus, status, sessionId, id)
  }

  completeCall(sessionId: string, result: ToolExecutionResult, at: string): void {
    this.#unit.run(this.#s.completeCall, result.status, at, JSON.stringify(result), sessionId, result.callId)
  }
}

class SqliteEventWrites implements EventWrites {
  readonly #unit: UnitStatements
  readonly #s: Statements

  constructor(unit: UnitStatements, statements: Statements) {
    this.#unit = unit
    this.#s = statements
  }

  insert(event: StoredEvent, at: string): void {
    this.#unit.run(this.#s.insertEvent, event.sessionId, event.seq, event.type, at, event.data)
  }
}

class SqliteApprovalWrites implements ApprovalWrites {
  readonly #unit: UnitStatements
  readonly #s: Statements

  constructor(unit: UnitStatements, statements: Statements) {
    this.#unit = unit
    this.#s = statements
  }

  insert(request: NewPermission): void {
    const { id, sessionId, callId, toolName, input, preview, riskLevel, reason, suggestedRule, createdAt } = request
    this.#unit.run(this.#s.insertPermission, id, sessionId, callId, toolName, JSON.stringify(input ?? null), json(preview), riskLevel, reason, suggestedRule, createdAt)
  }

  decide(id: string, decision: PermissionDecisionRecord): void {
    this.#unit.run(this.#s.decidePermission, decision.status, decision.decidedBy, decision.message, decision.scope, decision.decidedAt, id)
  }

  grantFor(permissionId: string, at: string): void {
    this.#unit.run(this.#s.grantFor, at, permissionId)
  }

  insertGrant(sessionId: string, toolName: string, ruleKey: string, at: string): void {
    this.#unit.run(this.#s.insertGrant, sessionId, toolName, ruleKey, at)
  }
}

class SqliteRuleWrites implements RuleWrites {
  readonly #unit: UnitStatements
  readonly #s: Statements
  readonly #cache: CommittedCache

  constructor(unit: UnitStatements, statements: Statements, cache: CommittedCache) {
    this.#unit = unit
    this.#s = statements
    this.#cache = cache
  }

  insertProjectRule(workspace: string, rule: string, at: string): void {
    this.#cache.forgetProjectRules()
    this.#unit.run(this.#s.insertProjectRule, `rule_${crypto.randomUUID()}`, workspace, rule, at)
  }

  projectRuleFor(permissionId: string, at: string): void {
    this.#cache.forgetProjectRules()
    this.#unit.run(this.#s.projectRuleFor, `rule_${crypto.randomUUID()}`, at, permissionId)
  }

  deleteProjectRule(id: string): void {
    this.#cache.forgetProjectRules()
    this.#unit.run(this.#s.deleteProjectRule, id)
  }

  putClientTool(name: string, definition: unknown, at: string): void {
    this.#unit.run(this.#s.putClientTool, name, JSON.stringify(definition), at)
  }

  deleteClientTool(name: string): void {
    this.#unit.run(this.#s.deleteClientTool, name)
  }
}

class SqliteArtifactWrites implements ArtifactWrites {
  readonly #unit: UnitStatements
  readonly #s: Statements

  constructor(unit: UnitStatements, statements: Statements) {
    this.#unit = unit
    this.#s = statements
  }

  insert(ref: ArtifactRecord, at: string): void {
    this.#unit.run(this.#s.insertArtifact, ref.id, ref.sessionId, ref.callId, ref.path, ref.uri, ref.bytes, ref.mediaType, ref.retention, ref.sha256, at)
  }
}

/** One per store, reused by every commit: its writers work only while a build runs. */
export class SqliteUnitOfWork implements UnitOfWork {
  readonly sessions: SessionWrites
  readonly schedules: ScheduleWrites
  readonly events: EventWrites
  readonly approvals: ApprovalWrites
  readonly rules: RuleWrites
  readonly artifacts: ArtifactWrites
  readonly #statements = new UnitStatements()

  constructor(statements: Statements, cache: CommittedCache) {
    const unit = this.#statements
    this.sessions = new SqliteSessionWrites(unit, statements, cache)
    this.schedules = new SqliteScheduleWrites(unit, statements)
    this.events = new SqliteEventWrites(unit, statements)
    this.approvals = new SqliteApprovalWrites(unit, statements)
    this.rules = new SqliteRuleWrites(unit, statements, cache)
    this.artifacts = new SqliteArtifactWrites(unit, statements)
  }

  /** Whether a build is running now. */
  get building(): boolean {
    return this.#statements.open
  }

  /** Runs `build` with this unit's writers; the caller holds the transaction open around it. */
  build<T>(build: (unit: UnitOfWork) => T): T {
    return this.#statements.during(() => build(this))
  }
}
