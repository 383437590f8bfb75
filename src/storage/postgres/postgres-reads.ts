/** @module The PostgreSQL store's reads, by role: each one prepared statement, one round trip. */
import type {
  ApprovalReads,
  ArtifactReads,
  BackgroundTaskReads,
  EventReads,
  AuditReads,
  KeyReads,
  ProjectRuleRecord,
  RuleReads,
  ScheduleReads,
  SessionCounts,
  SessionReads,
  SessionRecord,
} from '../../contracts/store.js'
import { toArtifactRecord, toAuditRecord, toBackgroundTaskRecord, toCallRow, toKeyRecord, toPermissionRow, toScheduleRecord, toSessionRecord, type RawRow } from '../rows.js'
import type { CommittedCache } from './committed-cache.js'
import { EventPageBatch } from './event-page-batch.js'
import type { PgSender } from './pg-connection.js'
import { statement, type StatementKey } from './statements.js'

/** What the store keeps as committed between reads (see committed-cache.ts). */
export interface ReadCaches {
  readonly sessions: CommittedCache<SessionRecord>
  /** Rules of each workspace. */
  readonly projectRules: CommittedCache<string[]>
}

class Reader {
  constructor(readonly connection: PgSender) {}

  rows(key: StatementKey, ...values: unknown[]): Promise<RawRow[]> {
    return this.connection.rows(statement(key, ...values))
  }

  async row(key: StatementKey, ...values: unknown[]): Promise<RawRow | undefined> {
    return (await this.rows(key, ...values))[0]
  }

  async exists(key: StatementKey, ...values: unknown[]): Promise<boolean> {
    return (await this.row(key, ...values)) !== undefined
  }

  /** The first column of every row. */
  async column<T>(key: StatementKey, ...values: unknown[]): Promise<T[]> {
    return (await this.rows(key, ...values)).map((row) => Object.values(row)[0] as T)
  }
}

export function sessionReads(connection: PgSender, caches: ReadCaches): SessionReads {
  const read = new Reader(connection)
  return {
    get: (id) => caches.sessions.get(id, async () => optional(await read.row('getSession', id), toSessionRecord)),
    // Every ISO timestamp sorts below '~'.
    page: async (before, limit) => (await read.rows('sessionsBefore', before?.createdAt ?? '~', before?.id ?? '', limit)).map(toSessionRecord),
    ids: () => read.column<string>('sessionIds'),
    counts: async (id) => (await read.row('sessionCounts', id)) as unknown as SessionCounts,
    todos: async (id) => {
      const [value] = await read.column<string>('getTodos', id)
      return typeof value === 'string' ? (JSON.parse(value) as unknown) : undefined
    },
  }
}

export function scheduleReads(connection: PgSender): ScheduleReads {
  const read = new Reader(connection)
  return {
    get: async (id) => optional(await read.row('getSchedule', id), toScheduleRecord),
    unfinished: async () => (await read.rows('unfinishedSchedules')).map(toScheduleRecord),
    unfinishedIdsOf: (sessionId) => read.column<string>('unfinishedScheduleIdsOfSession', sessionId),
    aborted: (id) => read.exists('scheduleAborted', id),
    calls: async (scheduleId) => (await read.rows('callsOfSchedule', scheduleId)).map(toCallRow),
    call: async (sessionId, id) => optional(await read.row('getCall', sessionId, id), toCallRow),
    scheduledBy: async (sessionId, callId) => optional(await read.row('callScheduler', sessionId, callId), (row) => String(row.scheduled_by)),
    history: async (sessionId) => (await read.rows('history', sessionId)).map((row) => ({ ...toCallRow(row), turnId: String(row.turn_id) })),
    runningCalls: async () => (await read.rows('runningCalls')).map((row) => ({ sessionId: String(row.sessionId), id: String(row.id) })),
  }
}

export function eventReads(connection: PgSender): EventReads {
  const read = new Reader(connection)
  const pages = new EventPageBatch(connection)
  return {
    after: (sessionId, afterSeq, limit, maxChars = Infinity) => pages.page({ sessionId, afterSeq, limit, maxChars }),
    lastSeq: async (sessionId) => (await read.column<number>('lastSeq', sessionId))[0] ?? 0,
  }
}

export function approvalReads(connection: PgSender): ApprovalReads {
  const read = new Reader(connection)
  return {
    get: async (id) => optional(await read.row('getPermission', id), toPermissionRow),
    pending: async (sessionId) => (sessionId === undefined ? await read.rows('pendingPermissions') : await read.rows('pendingPermissionsOfSession', sessionId)).map(toPermissionRow),
    lastForCall: async (sessionId, callId) => optional(await read.row('lastPermissionForCall', sessionId, callId), toPermissionRow),
    closedSession: async (id) => optional(await read.row('closedPermissionSession', id), (row) => String(row.session_id)),
    hasGrant: (sessionId, toolName, ruleKey) => read.exists('hasGrant', sessionId, toolName, ruleKey),
  }
}

export function ruleReads(connection: PgSender, caches: ReadCaches): RuleReads {
  const read = new Reader(connection)
  return {
    projectRules: async () => (await read.rows('projectRules')) as unknown as ProjectRuleRecord[],
    projectRulesOf: async (workspace) => (await caches.projectRules.get(workspace, () => read.column<string>('projectRulesOf', workspace))) ?? [],
    clientTools: async () => (await read.column<string>('clientTools')).map((text) => JSON.parse(text) as unknown),
  }
}

export function artifactReads(connection: PgSender): ArtifactReads {
  const read = new Reader(connection)
  return {
    get: async (sessionId, id) => optional(await read.row('getArtifact', sessionId, id), toArtifactRecord),
    bytesOfCall: async (sessionId, callId) => (await read.column<number>('artifactBytesOfCall', sessionId, callId))[0] ?? 0,
    bytesOfSession: async (sessionId) => (await read.column<number>('artifactBytesOfSession', sessionId))[0] ?? 0,
    pathsOfSession: (sessionId) => read.column<string>('artifactPathsOfSession', sessionId),
  }
}

export function backgroundTaskReads(connection: PgSender): BackgroundTaskReads {
  const read = new Reader(connection)
  return {
    get: async (sessionId, id) => optional(await read.row('getBackgroundTask', sessionId, id), toBackgroundTaskRecord),
    running: async (sessionId) => (sessionId === undefined ? await read.rows('runningBackgroundTasks') : await read.rows('runningBackgroundTasksOfSession', sessionId)).map(toBackgroundTaskRecord),
    outputPathsOf: (sessionId) => read.column<string>('backgroundTaskOutputPaths', sessionId),
  }
}

/** Read on every request that carries a key, never cached: a key revoked on any server stops working at once on all. */
export function keyReads(connection: PgSender): KeyReads {
  const read = new Reader(connection)
  return {
    get: async (id) => optional(await read.row('getKey', id), toKeyRecord),
    bySecretHash: async (secretHash) => optional(await read.row('keyBySecretHash', secretHash), toKeyRecord),
    list: async () => (await read.rows('keys')).map(toKeyRecord),
  }
}

const optional = <T>(row: RawRow | undefined, to: (row: RawRow) => T): T | undefined => (row === undefined ? undefined : to(row))

export function auditReads(connection: PgSender): AuditReads {
  const read = new Reader(connection)
  return {
    page: async (query) => {
      const { kind = null, actor = null, sessionId = null, since = null, until = null } = query
      return (await read.rows('auditPage', query.after, kind, actor, sessionId, since, until, query.limit)).map(toAuditRecord)
    },
  }
}
