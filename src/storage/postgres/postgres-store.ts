/**
 * @module Every row toolexec keeps, in PostgreSQL, behind the synchronous port: each call
 * waits for the worker that holds the connection (pg-bridge.ts), and a unit of work is one
 * transaction on it whose writes travel together (unit-of-work.ts).
 */
import type { CallRecordStatus, ScheduleStatus } from '../../contracts/api.js'
import type { ToolFlags } from '../../contracts/flags.js'
import type { ToolExecutionResult } from '../../contracts/result.js'
import type { ArtifactRecord, CallRow, NewCall, PermissionDecisionRecord, PermissionRow, ProjectRuleRecord, ScheduleRecord, SessionRecord, Store, StoredEvent } from '../../contracts/store.js'
import { json, SESSION_DELETIONS, toArtifactRecord, toCallRow, toPermissionRow, toScheduleRecord, toSessionRecord, type RawRow } from '../rows.js'
import { statement, type StatementKey } from './statements.js'
import type { UnitOfWork } from './unit-of-work.js'

export class PostgresStore implements Store {
  readonly #work: UnitOfWork
  /** Rules of each workspace as committed; every write of project_rules goes through this store and clears it. */
  readonly #projectRules = new Map<string, string[]>()
  /** Sessions as committed, read on every call; every write of a session row goes through this store and evicts it. */
  readonly #sessions = new Map<string, SessionRecord>()

  constructor(work: UnitOfWork) {
    this.#work = work
  }

  transaction<T>(fn: () => T): T {
    return this.#work.transaction(fn)
  }

  get inTransaction(): boolean {
    return this.#work.inTransaction
  }

  #rows(key: StatementKey, ...values: unknown[]): RawRow[] {
    return this.#work.query(statement(key, ...values)).rows
  }

  #row(key: StatementKey, ...values: unknown[]): RawRow | undefined {
    return this.#rows(key, ...values)[0]
  }

  #exists(key: StatementKey, ...values: unknown[]): boolean {
    return this.#row(key, ...values) !== undefined
  }

  /** The first column of every row. */
  #column<T>(key: StatementKey, ...values: unknown[]): T[] {
    return this.#rows(key, ...values).map((row) => Object.values(row)[0] as T)
  }

  #write(key: StatementKey, ...values: unknown[]): void {
    this.#work.write(statement(key, ...values))
  }

  /** A write whose changed-row count the caller needs: sent at once. */
  #changes(key: StatementKey, ...values: unknown[]): number {
    return this.#work.query(statement(key, ...values)).rowCount
  }

  insertSession(session: SessionRecord): void {
    this.#sessions.delete(session.id)
    const sandbox = session.sandbox
    this.transaction(() => {
      this.#write('insertSession', session.id, session.workspace, session.permissionMode, session.interactive ? 1 : 0, session.permissionTimeoutMs, session.createdAt)
      if (sandbox !== undefined) this.#write('insertSessionSandbox', session.id, JSON.stringify(sandbox))
    })
  }

  getSession(id: string): SessionRecord | undefined {
    const cached = this.#sessions.get(id)
    if (cached !== undefined) return cached
    const row = this.#row('getSession', id)
    if (row === undefined) return undefined
    const session = toSessionRecord(row)
    // Inside a transaction the row may yet be rolled back, so only committed state is kept.
    if (!this.#work.inTransaction) this.#sessions.set(id, session)
    return session
  }

  permissionModeOf(id: string): SessionRecord['permissionMode'] | undefined {
    return this.getSession(id)?.permissionMode
  }

  sessionsBefore(before: SessionRecord | undefined, limit: number): SessionRecord[] {
    // Every ISO timestamp sorts below '~'.
    return this.#rows('sessionsBefore', before?.createdAt ?? '~', before?.id ?? '', limit).map(toSessionRecord)
  }

  sessionIds(): string[] {
    return this.#column<string>('sessionIds')
  }

  sessionCounts(id: string): { schedules: number; calls: number; pendingPermissions: number } {
    return this.#row('sessionCounts', id) as { schedules: number; calls: number; pendingPermissions: number }
  }

  setPermissionMode(sessionId: string, mode: SessionRecord['permissionMode']): void {
    this.#sessions.delete(sessionId)
    this.#write('setPermissionMode', mode, sessionId)
  }

  deleteSession(sessionId: string): string[] {
    this.#sessions.delete(sessionId)
    return this.transaction(() => {
      const paths = this.#column<string>('artifactPathsOfSession', sessionId)
      for (const key of SESSION_DELETIONS) this.#write(key, sessionId)
      return paths
    })
  }

  // Sent at once: a taken id is answered where it is inserted.
  insertSchedule(schedule: Omit<ScheduleRecord, 'arrival' | 'completedAt'>): void {
    this.#changes('insertSchedule', schedule.id, schedule.sessionId, schedule.turnId, schedule.status, JSON.stringify(schedule.groups), schedule.createdAt)
  }

  getSchedule(id: string): ScheduleRecord | undefined {
    const row = this.#row('getSchedule', id)
    return row === undefined ? undefined : toScheduleRecord(row)
  }

  setScheduleStatus(id: string, status: ScheduleStatus, completedAt: string | null): void {
    this.#write('setScheduleStatus', status, completedAt, id)
  }

  setScheduleGroups(id: string, groups: readonly (readonly string[])[]): void {
    this.#write('setScheduleGroups', JSON.stringify(groups), id)
  }

  markSchedulesAborted(sessionId: string, at: string): void {
    this.#write('markSchedulesAborted', at, sessionId)
  }

  scheduleAborted(id: string): boolean {
    return this.#exists('scheduleAborted', id)
  }

  unfinishedSchedules(): ScheduleRecord[] {
    return this.#rows('unfinishedSchedules').map(toScheduleRecord)
  }

  hasUnfinishedSchedule(sessionId: string): boolean {
    return this.#exists('hasUnfinishedSchedule', sessionId)
  }

  unfinishedScheduleIds(sessionId: string): string[] {
    return this.#column<string>('unfinishedScheduleIdsOfSession', sessionId)
  }

  // Sent at once: a taken id is answered where it is inserted.
  insertCall(call: NewCall): void {
    this.#changes('insertCall', call.sessionId, call.id, call.scheduleId, call.position, call.name, JSON.stringify(call.input ?? null), json(call.dependsOn))
  }

  markCallRunning(sessionId: string, id: string, resolvedInput: unknown, flags: ToolFlags, at: string): void {
    this.#write('markCallRunning', json(resolvedInput), JSON.stringify(flags), at, sessionId, id)
  }

  setCallStatus(sessionId: string, id: string, status: CallRecordStatus): void {
    this.#write('setCallStatus', status, sessionId, id)
  }

  completeCall(sessionId: string, result: ToolExecutionResult, at: string): void {
    this.#write('completeCall', result.status, at, JSON.stringify(result), sessionId, result.callId)
  }

  callsOfSchedule(scheduleId: string): CallRow[] {
    return this.#rows('callsOfSchedule', scheduleId).map(toCallRow)
  }

  getCall(sessionId: string, id: string): CallRow | undefined {
    const row = this.#row('getCall', sessionId, id)
    return row === undefined ? undefined : toCallRow(row)
  }

  history(sessionId: string): (CallRow & { turnId: string })[] {
    return this.#rows('history', sessionId).map((row) => ({ ...toCallRow(row), turnId: String(row.turn_id) }))
  }

  runningCallCount(): number {
    return this.#column<number>('runningCallCount')[0] ?? 0
  }

  runningCalls(): { sessionId: string; id: string }[] {
    return this.#rows('runningCalls') as { sessionId: string; id: string }[]
  }

  insertPermission(request: Omit<PermissionRow, 'status' | 'decidedBy' | 'message' | 'scope' | 'decidedAt'>): void {
    this.#write(
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
    )
  }

  decidePermission(id: string, decision: PermissionDecisionRecord): void {
    this.#write('decidePermission', decision.status, decision.decidedBy, decision.message, decision.scope, decision.decidedAt, id)
  }

  getPermission(id: string): PermissionRow | undefined {
    const row = this.#row('getPermission', id)
    return row === undefined ? undefined : toPermissionRow(row)
  }

  pendingPermissions(sessionId?: string): PermissionRow[] {
    const rows = sessionId === undefined ? this.#rows('pendingPermissions') : this.#rows('pendingPermissionsOfSession', sessionId)
    return rows.map(toPermissionRow)
  }

  lastPermissionForCall(sessionId: string, callId: string): PermissionRow | undefined {
    const row = this.#row('lastPermissionForCall', sessionId, callId)
    return row === undefined ? undefined : toPermissionRow(row)
  }

  insertGrant(sessionId: string, toolName: string, ruleKey: string, at: string): void {
    this.#write('insertGrant', sessionId, toolName, ruleKey, at)
  }

  hasGrant(sessionId: string, toolName: string, ruleKey: string): boolean {
    return this.#exists('hasGrant', sessionId, toolName, ruleKey)
  }

  insertProjectRule(workspace: string, rule: string, at: string): void {
    this.#projectRules.clear()
    this.#write('insertProjectRule', `rule_${crypto.randomUUID()}`, workspace, rule, at)
  }

  projectRules(): ProjectRuleRecord[] {
    return this.#rows('projectRules') as unknown as ProjectRuleRecord[]
  }

  projectRulesOf(workspace: string): string[] {
    const cached = this.#projectRules.get(workspace)
    if (cached !== undefined) return cached
    const rules = this.#column<string>('projectRulesOf', workspace)
    // Inside a transaction the rows may yet be rolled back, so only committed state is kept.
    if (!this.#work.inTransaction) this.#projectRules.set(workspace, rules)
    return rules
  }

  deleteProjectRule(id: string): boolean {
    this.#projectRules.clear()
    return this.#changes('deleteProjectRule', id) > 0
  }

  insertArtifact(ref: ArtifactRecord, at: string): void {
    this.#write('insertArtifact', ref.id, ref.sessionId, ref.callId, ref.path, ref.uri, ref.bytes, ref.mediaType, ref.retention, ref.sha256, at)
  }

  getArtifact(sessionId: string, id: string): (ArtifactRecord & { createdAt: string }) | undefined {
    const row = this.#row('getArtifact', sessionId, id)
    if (row === undefined) return undefined
    return toArtifactRecord(row)
  }

  artifactBytesOfCall(sessionId: string, callId: string): number {
    return this.#column<number>('artifactBytesOfCall', sessionId, callId)[0] ?? 0
  }

  artifactBytesOfSession(sessionId: string): number {
    return this.#column<number>('artifactBytesOfSession', sessionId)[0] ?? 0
  }

  insertEvent(event: StoredEvent, at: string): void {
    this.#write('insertEvent', event.sessionId, event.seq, event.type, at, event.data)
  }

  eventsAfter(sessionId: string, afterSeq: number, limit: number, maxChars = Infinity): StoredEvent[] {
    if (maxChars === Infinity) return this.#rows('eventsAfter', sessionId, afterSeq, limit) as unknown as StoredEvent[]
    const candidates = this.#rows('eventsAfterUpTo', sessionId, afterSeq, limit, maxChars) as unknown as StoredEvent[]
    const page: StoredEvent[] = []
    let chars = 0
    for (const event of candidates) {
      page.push(event)
      chars += event.data.length
      if (chars >= maxChars) break
    }
    return page
  }

  lastSeq(sessionId: string): number {
    return this.#column<number>('lastSeq', sessionId)[0] ?? 0
  }

  getTodos(sessionId: string): unknown {
    const value = this.#column<string>('getTodos', sessionId)[0]
    return typeof value === 'string' ? JSON.parse(value) : undefined
  }

  setTodos(sessionId: string, todos: unknown, at: string): void {
    this.#write('setTodos', sessionId, JSON.stringify(todos), at)
  }

  insertClientTool(name: string, definition: unknown, at: string): void {
    this.#write('insertClientTool', name, JSON.stringify(definition), at)
  }

  deleteClientTool(name: string): boolean {
    return this.#changes('deleteClientTool', name) > 0
  }

  clientTools(): unknown[] {
    return this.#column<string>('clientTools').map((text) => JSON.parse(text) as unknown)
  }

  rowCounts(): Record<string, number> {
    return { ...this.#row('rowCounts') } as Record<string, number>
  }
}
