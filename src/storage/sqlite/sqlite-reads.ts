/**
 * @module The store's reads on SQLite, by role. A statement answers at once, so each read runs
 * it in place and hands its answer (or its error) to the port as an already settled promise.
 */
import type { AuditQuery } from '../../contracts/audit.js'
import type {
  ApprovalReads,
  ArtifactReads,
  ArtifactRecord,
  BackgroundTaskReads,
  CallRow,
  EventReads,
  AuditReads,
  AuditRecord,
  KeyReads,
  KeyRecord,
  PermissionRow,
  ProjectRuleRecord,
  RuleReads,
  ScheduleReads,
  ScheduleRecord,
  SessionCounts,
  SessionReads,
  SessionRecord,
  StoredEvent,
} from '../../contracts/store.js'
import type { BackgroundTaskRecord } from '../../contracts/background-task-record.js'
import { toArtifactRecord, toAuditRecord, toBackgroundTaskRecord, toCallRow, toKeyRecord, toPermissionRow, toScheduleRecord, toSessionRecord, type RawRow } from '../rows.js'
import type { CommittedCache } from './committed-cache.js'
import { settled } from './settled.js'
import type { Statements } from './statements.js'

const parsedText = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : undefined)

export class SqliteSessionReads implements SessionReads {
  readonly #s: Statements
  readonly #cache: CommittedCache

  constructor(statements: Statements, cache: CommittedCache) {
    this.#s = statements
    this.#cache = cache
  }

  get(id: string): Promise<SessionRecord | undefined> {
    return settled(() => this.#cache.session(id))
  }

  page(before: SessionRecord | undefined, limit: number): Promise<SessionRecord[]> {
    // Every ISO timestamp sorts below '~'.
    return settled(() => (this.#s.sessionsBefore.all(before?.createdAt ?? '~', before?.id ?? '', limit) as RawRow[]).map(toSessionRecord))
  }

  ids(): Promise<string[]> {
    return settled(() => this.#s.sessionIds.pluck().all() as string[])
  }

  counts(id: string): Promise<SessionCounts> {
    return settled(() => this.#s.sessionCounts.get(id, id, id) as SessionCounts)
  }

  todos(id: string): Promise<unknown> {
    return settled(() => parsedText(this.#s.getTodos.pluck().get(id)))
  }
}

export class SqliteScheduleReads implements ScheduleReads {
  readonly #s: Statements

  constructor(statements: Statements) {
    this.#s = statements
  }

  get(id: string): Promise<ScheduleRecord | undefined> {
    return settled(() => {
      const row = this.#s.getSchedule.get(id) as RawRow | undefined
      return row === undefined ? undefined : toScheduleRecord(row)
    })
  }

  unfinished(): Promise<ScheduleRecord[]> {
    return settled(() => (this.#s.unfinishedSchedules.all() as RawRow[]).map(toScheduleRecord))
  }

  unfinishedIdsOf(sessionId: string): Promise<string[]> {
    return settled(() => this.#s.unfinishedScheduleIdsOfSession.pluck().all(sessionId) as string[])
  }

  aborted(id: string): Promise<boolean> {
    return settled(() => this.#s.scheduleAborted.get(id) !== undefined)
  }

  calls(scheduleId: string): Promise<CallRow[]> {
    return settled(() => (this.#s.callsOfSchedule.all(scheduleId) as RawRow[]).map(toCallRow))
  }

  call(sessionId: string, id: string): Promise<CallRow | undefined> {
    return settled(() => {
      const row = this.#s.getCall.get(sessionId, id) as RawRow | undefined
      return row === undefined ? undefined : toCallRow(row)
    })
  }

  scheduledBy(sessionId: string, callId: string): Promise<string | undefined> {
    return settled(() => this.#s.callScheduler.pluck().get(sessionId, callId) as string | undefined)
  }

  history(sessionId: string): Promise<(CallRow & { turnId: string })[]> {
    return settled(() => (this.#s.history.all(sessionId) as RawRow[]).map((row) => ({ ...toCallRow(row), turnId: String(row.turn_id) })))
  }

  runningCalls(): Promise<{ sessionId: string; id: string }[]> {
    return settled(() => this.#s.runningCalls.all() as { sessionId: string; id: string }[])
  }
}

export class SqliteEventReads implements EventReads {
  readonly #s: Statements

  constructor(statements: Statements) {
    this.#s = statements
  }

  after(sessionId: string, afterSeq: number, limit: number, maxChars = Infinity): Promise<StoredEvent[]> {
    return settled(() => this.#page(sessionId, afterSeq, limit, maxChars))
  }

  lastSeq(sessionId: string): Promise<number> {
    return settled(() => this.#s.lastSeq.pluck().get(sessionId) as number)
  }

  #page(sessionId: string, afterSeq: number, limit: number, maxChars: number): StoredEvent[] {
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
}

export class SqliteApprovalReads implements ApprovalReads {
  readonly #s: Statements

  constructor(statements: Statements) {
    this.#s = statements
  }

  get(id: string): Promise<PermissionRow | undefined> {
    return settled(() => {
      const row = this.#s.getPermission.get(id) as RawRow | undefined
      return row === undefined ? undefined : toPermissionRow(row)
    })
  }

  pending(sessionId?: string): Promise<PermissionRow[]> {
    return settled(() => {
      const rows = sessionId === undefined ? this.#s.pendingPermissions.all() : this.#s.pendingPermissionsOfSession.all(sessionId)
      return (rows as RawRow[]).map(toPermissionRow)
    })
  }

  lastForCall(sessionId: string, callId: string): Promise<PermissionRow | undefined> {
    return settled(() => {
      const row = this.#s.lastPermissionForCall.get(sessionId, callId) as RawRow | undefined
      return row === undefined ? undefined : toPermissionRow(row)
    })
  }

  closedSession(id: string): Promise<string | undefined> {
    return settled(() => this.#s.closedPermissionSession.pluck().get(id) as string | undefined)
  }

  hasGrant(sessionId: string, toolName: string, ruleKey: string): Promise<boolean> {
    return settled(() => this.#s.hasGrant.get(sessionId, toolName, ruleKey) !== undefined)
  }
}

export class SqliteRuleReads implements RuleReads {
  readonly #s: Statements
  readonly #cache: CommittedCache

  constructor(statements: Statements, cache: CommittedCache) {
    this.#s = statements
    this.#cache = cache
  }

  projectRules(): Promise<ProjectRuleRecord[]> {
    return settled(() => this.#s.projectRules.all() as ProjectRuleRecord[])
  }

  projectRulesOf(workspace: string): Promise<string[]> {
    return settled(() => this.#cache.projectRulesOf(workspace))
  }

  /** Each is checked again before it is registered. */
  clientTools(): Promise<unknown[]> {
    return settled(() => (this.#s.clientTools.pluck().all() as string[]).map((text) => JSON.parse(text) as unknown))
  }
}

export class SqliteArtifactReads implements ArtifactReads {
  readonly #s: Statements

  constructor(statements: Statements) {
    this.#s = statements
  }

  get(sessionId: string, id: string): Promise<(ArtifactRecord & { createdAt: string }) | undefined> {
    return settled(() => {
      const row = this.#s.getArtifact.get(sessionId, id) as RawRow | undefined
      return row === undefined ? undefined : toArtifactRecord(row)
    })
  }

  bytesOfCall(sessionId: string, callId: string): Promise<number> {
    return settled(() => this.#s.artifactBytesOfCall.pluck().get(sessionId, callId) as number)
  }

  bytesOfSession(sessionId: string): Promise<number> {
    return settled(() => this.#s.artifactBytesOfSession.pluck().get(sessionId) as number)
  }

  pathsOfSession(sessionId: string): Promise<string[]> {
    return settled(() => this.#s.artifactPathsOfSession.pluck().all(sessionId) as string[])
  }
}

export class SqliteBackgroundTaskReads implements BackgroundTaskReads {
  readonly #s: Statements

  constructor(statements: Statements) {
    this.#s = statements
  }

  get(sessionId: string, id: string): Promise<BackgroundTaskRecord | undefined> {
    return settled(() => {
      const row = this.#s.getBackgroundTask.get(sessionId, id) as RawRow | undefined
      return row === undefined ? undefined : toBackgroundTaskRecord(row)
    })
  }

  running(sessionId?: string): Promise<BackgroundTaskRecord[]> {
    return settled(() => {
      const rows = sessionId === undefined ? this.#s.runningBackgroundTasks.all() : this.#s.runningBackgroundTasksOfSession.all(sessionId)
      return (rows as RawRow[]).map(toBackgroundTaskRecord)
    })
  }

  outputPathsOf(sessionId: string): Promise<string[]> {
    return settled(() => this.#s.backgroundTaskOutputPaths.pluck().all(sessionId) as string[])
  }
}

export class SqliteKeyReads implements KeyReads {
  readonly #s: Statements

  constructor(statements: Statements) {
    this.#s = statements
  }

  get(id: string): Promise<KeyRecord | undefined> {
    return settled(() => optionalKey(this.#s.getKey.get(id)))
  }

  bySecretHash(secretHash: string): Promise<KeyRecord | undefined> {
    return settled(() => optionalKey(this.#s.keyBySecretHash.get(secretHash)))
  }

  list(): Promise<KeyRecord[]> {
    return settled(() => (this.#s.keys.all() as RawRow[]).map(toKeyRecord))
  }
}

const optionalKey = (row: unknown): KeyRecord | undefined => (row === undefined ? undefined : toKeyRecord(row as RawRow))

export class SqliteAuditReads implements AuditReads {
  readonly #s: Statements

  constructor(statements: Statements) {
    this.#s = statements
  }

  page(query: AuditQuery): Promise<AuditRecord[]> {
    const { kind = null, actor = null, sessionId = null, since = null, until = null } = query
    return settled(() => (this.#s.auditPage.all(query.after, kind, kind, actor, actor, sessionId, sessionId, since, since, until, until, query.limit) as RawRow[]).map(toAuditRecord))
  }
}
