/**
 * @module Every row toolexec keeps, behind statements prepared once. Synchronous on
 * purpose: better-sqlite3 runs a transaction without yielding, so a state change and its
 * event are one atomic step.
 */
import type { CallRecordStatus, ScheduleStatus } from '../../contracts/api.js'
import type { ToolFlags } from '../../contracts/flags.js'
import type { ToolExecutionResult } from '../../contracts/result.js'
import type { ArtifactRecord, CallRow, NewCall, PermissionDecisionRecord, PermissionRow, ProjectRuleRecord, ScheduleRecord, SessionRecord, Store, StoredEvent } from '../../contracts/store.js'
import type { Db } from './database.js'
import { conflictOr } from './sqlite-errors.js'
import { prepareStatements, type Statements } from './statements.js'
import { json, SESSION_DELETIONS, STORE_TABLES, toArtifactRecord, toCallRow, toPermissionRow, toScheduleRecord, toSessionRecord, type RawRow } from '../rows.js'

export class SqliteStore implements Store {
  readonly db: Db
  readonly #s: Statements
  /** Rules of each workspace as committed; every write of project_rules goes through this store and clears it. */
  readonly #projectRules = new Map<string, string[]>()
  /** Sessions as committed, read on every call; every write of a session row goes through this store and evicts it. */
  readonly #sessions = new Map<string, SessionRecord>()
  // One wrapper for every transaction: building one per call costs more than the BEGIN itself.
  readonly #inTransaction: (fn: () => unknown) => unknown

  constructor(db: Db) {
    this.db = db
    this.#s = prepareStatements(db)
    this.#inTransaction = db.transaction((fn: () => unknown) => fn())
  }

  /** Runs `fn` in a transaction; called inside another one, it is a savepoint. */
  transaction<T>(fn: () => T): T {
    return this.#inTransaction(fn) as T
  }

  get inTransaction(): boolean {
    return this.db.inTransaction
  }

  insertSession(session: SessionRecord): void {
    this.#sessions.delete(session.id)
    const sandbox = session.sandbox
    try {
      this.transaction(() => {
        this.#s.insertSession.run(session.id, session.workspace, session.permissionMode, session.interactive ? 1 : 0, session.permissionTimeoutMs, session.createdAt)
        if (sandbox !== undefined) this.#s.insertSessionSandbox.run(session.id, JSON.stringify(sandbox))
      })
    } catch (error) {
      throw conflictOr(error)
    }
  }

  getSession(id: string): SessionRecord | undefined {
    const cached = this.#sessions.get(id)
    if (cached !== undefined) return cached
    const row = this.#s.getSession.get(id) as RawRow | undefined
    if (row === undefined) return undefined
    const session = toSessionRecord(row)
    // Inside a transaction the row may yet be rolled back, so only committed state is kept.
    if (!this.db.inTransaction) this.#sessions.set(id, session)
    return session
  }

  /** The mode each call's permission check reads. */
  permissionModeOf(id: string): SessionRecord['permissionMode'] | undefined {
    return this.getSession(id)?.permissionMode
  }

  /** Newest first: up to `limit` sessions created before `before` (all when undefined). */
  sessionsBefore(before: SessionRecord | undefined, limit: number): SessionRecord[] {
    // Every ISO timestamp sorts below '~'.
    const rows = this.#s.sessionsBefore.all(before?.createdAt ?? '~', before?.id ?? '', limit) as RawRow[]
    return rows.map(toSessionRecord)
  }

  sessionIds(): string[] {
    return this.#s.sessionIds.pluck().all() as string[]
  }

  sessionCounts(id: string): { schedules: number; calls: number; pendingPermissions: number } {
    return this.#s.sessionCounts.get(id, id, id) as { schedules: number; calls: number; pendingPermissions: number }
  }

  insertSchedule(schedule: Omit<ScheduleRecord, 'arrival' | 'completedAt'>): void {
    try {
      this.#s.insertSchedule.run(schedule.id, schedule.sessionId, schedule.turnId, schedule.sessionId, schedule.status, JSON.stringify(schedule.groups), schedule.createdAt)
    } catch (error) {
      throw conflictOr(error)
    }
  }

  getSchedule(id: string): ScheduleRecord | undefined {
    const row = this.#s.getSchedule.get(id) as RawRow | undefined
    return row === undefined ? undefined : toScheduleRecord(row)
  }

  setScheduleStatus(id: string, status: ScheduleStatus, completedAt: string | null): void {
    this.#s.setScheduleStatus.run(status, completedAt, id)
  }

  setScheduleGroups(id: string, groups: readonly (readonly string[])[]): void {
    this.#s.setScheduleGroups.run(JSON.stringify(groups), id)
  }

  /** Marks the session's schedules not yet ended as aborted, so that a restart does not run what the abort cancelled. */
  markSchedulesAborted(sessionId: string, at: string): void {
    this.#s.markSchedulesAborted.run(at, sessionId)
  }

  scheduleAborted(id: string): boolean {
    return this.#s.scheduleAborted.get(id) !== undefined
  }

  /** Calls whose handler has started and that have no result yet. */
  runningCallCount(): number {
    return this.#s.runningCallCount.pluck().get() as number
  }

  /** Calls whose handler has started and that have no result yet, by key. */
  runningCalls(): { sessionId: string; id: string }[] {
    return this.#s.runningCalls.all() as { sessionId: string; id: string }[]
  }

  unfinishedSchedules(): ScheduleRecord[] {
    return (this.#s.unfinishedSchedules.all() as RawRow[]).map(toScheduleRecord)
  }

  insertCall(call: NewCall): void {
    try {
      this.#s.insertCall.run(call.sessionId, call.id, call.scheduleId, call.position, call.name, JSON.stringify(call.input ?? null), json(call.dependsOn))
    } catch (error) {
      throw conflictOr(error)
    }
  }

  markCallRunning(sessionId: string, id: string, resolvedInput: unknown, flags: ToolFlags, at: string): void {
    this.#s.markCallRunning.run(json(resolvedInput), JSON.stringify(flags), at, sessionId, id)
  }

  setCallStatus(sessionId: string, id: string, status: CallRecordStatus): void {
    this.#s.setCallStatus.run(status, sessionId, id)
  }

  /** The result is stored whole, once (result_json); its event carries the stream's copy. */
  completeCall(sessionId: string, result: ToolExecutionResult, at: string): void {
    this.#s.completeCall.run(result.status, at, JSON.stringify(result), sessionId, result.callId)
  }

  callsOfSchedule(scheduleId: string): CallRow[] {
    return (this.#s.callsOfSchedule.all(scheduleId) as RawRow[]).map(toCallRow)
  }

  getCall(sessionId: string, id: string): CallRow | undefined {
    const row = this.#s.getCall.get(sessionId, id) as RawRow | undefined
    return row === undefined ? undefined : toCallRow(row)
  }

  /** Terminal records in the order the model saw them (R39). */
  history(sessionId: string): (CallRow & { turnId: string })[] {
    return (this.#s.history.all(sessionId) as RawRow[]).map((row) => ({ ...toCallRow(row), turnId: String(row.turn_id) }))
  }

  insertPermission(request: Omit<PermissionRow, 'status' | 'decidedBy' | 'message' | 'scope' | 'decidedAt'>): void {
    try {
      this.#s.insertPermission.run(
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
      )
    } catch (error) {
      throw conflictOr(error)
    }
  }

  decidePermission(id: string, decision: PermissionDecisionRecord): void {
    this.#s.decidePermission.run(decision.status, decision.decidedBy, decision.message, decision.scope, decision.decidedAt, id)
  }

  getPermission(id: string): PermissionRow | undefined {
    const row = this.#s.getPermission.get(id) as RawRow | undefined
    return row === undefined ? undefined : toPermissionRow(row)
  }

  pendingPermissions(sessionId?: string): PermissionRow[] {
    const rows = sessionId === undefined ? this.#s.pendingPermissions.all() : this.#s.pendingPermissionsOfSession.all(sessionId)
    return (rows as RawRow[]).map(toPermissionRow)
  }

  /** The call's latest permission request, pending or decided. */
  lastPermissionForCall(sessionId: string, callId: string): PermissionRow | undefined {
    const row = this.#s.lastPermissionForCall.get(sessionId, callId) as RawRow | undefined
    return row === undefined ? undefined : toPermissionRow(row)
  }

  insertGrant(sessionId: string, toolName: string, ruleKey: string, at: string): void {
    this.#s.insertGrant.run(sessionId, toolName, ruleKey, at)
  }

  hasGrant(sessionId: string, toolName: string, ruleKey: string): boolean {
    return this.#s.hasGrant.get(sessionId, toolName, ruleKey) !== undefined
  }

  insertArtifact(ref: ArtifactRecord, at: string): void {
    try {
      this.#s.insertArtifact.run(ref.id, ref.sessionId, ref.callId, ref.path, ref.uri, ref.bytes, ref.mediaType, ref.retention, ref.sha256, at)
    } catch (error) {
      throw conflictOr(error)
    }
  }

  getArtifact(sessionId: string, id: string): (ArtifactRecord & { createdAt: string }) | undefined {
    const row = this.#s.getArtifact.get(sessionId, id) as RawRow | undefined
    if (row === undefined) return undefined
    return toArtifactRecord(row)
  }

  insertEvent(event: StoredEvent, at: string): void {
    try {
      this.#s.insertEvent.run(event.sessionId, event.seq, event.type, at, event.data)
    } catch (error) {
      throw conflictOr(error)
    }
  }

  /**
   * Up to `limit` events after `afterSeq`, in order; with `maxChars`, the page also ends after
   * the event that brings its data to that many characters (one event at least).
   */
  eventsAfter(sessionId: string, afterSeq: number, limit: number, maxChars = Infinity): StoredEvent[] {
    if (maxChars === Infinity) return this.#s.eventsAfter.all(sessionId, afterSeq, limit) as StoredEvent[]
    const page: StoredEvent[] = []
    let chars = 0
    for (const event of this.#s.eventsAfter.iterate(sessionId, afterSeq, limit) as IterableIterator<StoredEvent>) {
      page.push(event)
      chars += event.data.length
      if (chars >= maxChars) break
    }
    return page
  }

  lastSeq(sessionId: string): number {
    return this.#s.lastSeq.pluck().get(sessionId) as number
  }

  setPermissionMode(sessionId: string, mode: SessionRecord['permissionMode']): void {
    this.#sessions.delete(sessionId)
    this.#s.setPermissionMode.run(mode, sessionId)
  }

  insertProjectRule(workspace: string, rule: string, at: string): void {
    this.#projectRules.clear()
    this.#s.insertProjectRule.run(`rule_${crypto.randomUUID()}`, workspace, rule, at)
  }

  projectRules(): ProjectRuleRecord[] {
    return this.#s.projectRules.all() as ProjectRuleRecord[]
  }

  projectRulesOf(workspace: string): string[] {
    const cached = this.#projectRules.get(workspace)
    if (cached !== undefined) return cached
    const rules = this.#s.projectRulesOf.pluck().all(workspace) as string[]
    // Inside a transaction the rows may yet be rolled back, so only committed state is kept.
    if (!this.db.inTransaction) this.#projectRules.set(workspace, rules)
    return rules
  }

  deleteProjectRule(id: string): boolean {
    this.#projectRules.clear()
    return this.#s.deleteProjectRule.run(id).changes > 0
  }

  getTodos(sessionId: string): unknown {
    const value = this.#s.getTodos.pluck().get(sessionId)
    return typeof value === 'string' ? JSON.parse(value) : undefined
  }

  setTodos(sessionId: string, todos: unknown, at: string): void {
    this.#s.setTodos.run(sessionId, JSON.stringify(todos), at)
  }

  hasUnfinishedSchedule(sessionId: string): boolean {
    return this.#s.hasUnfinishedSchedule.get(sessionId) !== undefined
  }

  unfinishedScheduleIds(sessionId: string): string[] {
    return this.#s.unfinishedScheduleIdsOfSession.pluck().all(sessionId) as string[]
  }

  /** Bytes of the call's recorded artifacts. */
  artifactBytesOfCall(sessionId: string, callId: string): number {
    return this.#s.artifactBytesOfCall.pluck().get(sessionId, callId) as number
  }

  /** Bytes of the session's recorded artifacts. */
  artifactBytesOfSession(sessionId: string): number {
    return this.#s.artifactBytesOfSession.pluck().get(sessionId) as number
  }

  /**
   * Deletes the session and every row of it, in one transaction.
   * @returns the paths of its artifacts, whose files the caller removes once this committed
   */
  deleteSession(sessionId: string): string[] {
    this.#sessions.delete(sessionId)
    return this.transaction(() => {
      const paths = this.#s.artifactPathsOfSession.pluck().all(sessionId) as string[]
      for (const statement of SESSION_DELETIONS) this.#s[statement].run(sessionId)
      return paths
    })
  }

  /** Keeps the definition of an HTTP tool a client added, in place of one stored under its name before. */
  insertClientTool(name: string, definition: unknown, at: string): void {
    this.#s.insertClientTool.run(name, JSON.stringify(definition), at)
  }

  deleteClientTool(name: string): boolean {
    return this.#s.deleteClientTool.run(name).changes > 0
  }

  /** Definitions as stored, oldest first; each is checked again before it is registered. */
  clientTools(): unknown[] {
    return (this.#s.clientTools.pluck().all() as string[]).map((text) => JSON.parse(text) as unknown)
  }

  /** Row counts of every table; tests use it to prove a rejected request wrote nothing. */
  rowCounts(): Record<string, number> {
    const counts: Record<string, number> = {}
    for (const table of STORE_TABLES) {
      counts[table] = this.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
    }
    return counts
  }
}

/** The SQLite database under `store`, for what only SQLite has (tests that look into the file, the bench's pragmas). */
export function sqliteDatabaseOf(store: Store): Db {
  if (!(store instanceof SqliteStore)) throw new Error('this store is not SQLite: the check needs the SQLite backend')
  return store.db
}
