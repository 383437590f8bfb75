/**
 * @module Every row toolexec keeps, in PostgreSQL: reads are one round trip each, and a unit of
 * work is recorded whole, then sent as one query text that PostgreSQL commits as one
 * transaction (pg-connection.ts), on whichever connection of the pool has the least to do
 * (pg-pool.ts); units committed while others are in flight share a transaction
 * (group-commit.ts). Nothing here waits for the database on the event loop.
 */
import { LeaseLostError, type SessionFence } from '../../contracts/cluster.js'
import type {
  ApprovalReads,
  ArtifactReads,
  AuditReads,
  BackgroundTaskReads,
  EventReads,
  KeyReads,
  RuleReads,
  ScheduleReads,
  SessionReads,
  SessionRecord,
  Store,
  UnitOfWork,
} from '../../contracts/store.js'
import { CommittedCache } from './committed-cache.js'
import type { PgSender, Traffic } from './pg-connection.js'
import { approvalReads, artifactReads, auditReads, backgroundTaskReads, eventReads, keyReads, ruleReads, scheduleReads, sessionReads, type ReadCaches } from './postgres-reads.js'
import { CACHES_CHANNEL, DELETED_CHANNEL, EVENTS_CHANNEL, TOOLS_CHANGED } from './pg-cluster.js'
import type { Statement } from './statements.js'
import { GroupCommit } from './group-commit.js'
import { mergeUnits, recordUnit, type RecordedUnit } from './unit-recorder.js'

export class PostgresStore implements Store {
  readonly sessions: SessionReads
  readonly schedules: ScheduleReads
  readonly events: EventReads
  readonly approvals: ApprovalReads
  readonly rules: RuleReads
  readonly artifacts: ArtifactReads
  readonly tasks: BackgroundTaskReads
  readonly keys: KeyReads
  readonly audit: AuditReads
  readonly #connection: PgSender
  readonly #groups: GroupCommit<RecordedUnit<unknown>>
  #building = false
  /** Set once the node's leases are kept: then every unit is fenced, and wakes the other nodes' readers and caches. */
  #fence: SessionFence | undefined
  // Sessions are read on every call and project rules on every permission check; only this store writes either.
  readonly #caches: ReadCaches = { sessions: new CommittedCache<SessionRecord>(), projectRules: new CommittedCache<string[]>() }

  constructor(connection: PgSender) {
    this.#connection = connection
    this.#groups = new GroupCommit({
      together: (units) => connection.commit(this.#fenced(mergeUnits(units))),
      alone: async (unit) => connection.commit(this.#fenced(unit)),
    })
    this.sessions = sessionReads(connection, this.#caches)
    this.schedules = scheduleReads(connection)
    this.events = eventReads(connection)
    this.approvals = approvalReads(connection)
    this.rules = ruleReads(connection, this.#caches)
    this.artifacts = artifactReads(connection)
    this.tasks = backgroundTaskReads(connection)
    this.keys = keyReads(connection)
    this.audit = auditReads(connection)
  }

  /** From now on each unit begins with the check that this node still holds the lease of every session it writes. */
  fenceWith(fence: SessionFence): void {
    this.#fence = fence
  }

  /** Another server changed rows this one caches. */
  evictCaches(): void {
    this.#caches.sessions.evictAll()
    this.#caches.projectRules.evictAll()
  }

  /** Round trips and statements sent so far, for the HTTP bench's report. */
  get traffic(): Traffic {
    return this.#connection.traffic
  }

  commit<T>(build: (unit: UnitOfWork) => T): Promise<T> {
    // Thrown, not returned: the build it was called from fails, and its unit sends nothing.
    if (this.#building) throw new Error('commit was called inside the build of another unit of work: record those writes in the unit being built')
    let unit: RecordedUnit<T>
    try {
      unit = this.#recorded(build)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#committed(unit)
  }

  #recorded<T>(build: (unit: UnitOfWork) => T): RecordedUnit<T> {
    this.#building = true
    try {
      return recordUnit(build)
    } finally {
      this.#building = false
    }
  }

  /** Durable once this settles; units not yet settled may commit in any order (the pool sends them on several connections). */
  async #committed<T>(unit: RecordedUnit<T>): Promise<T> {
    this.#evict(unit)
    if (unit.statements.length === 0) return unit.value
    try {
      if (unit.mergeable) await this.#groups.commit(unit)
      else await this.#connection.commit(this.#fenced(unit))
    } finally {
      this.#evict(unit)
    }
    return unit.value
  }

  /** The unit's statements, after its fence and before its wake-ups of other servers' readers and caches. */
  #fenced(unit: RecordedUnit<unknown>): readonly Statement[] {
    const fence = this.#fence
    if (fence === undefined) return unit.statements
    const after = [...wakeUpsOf(unit)]
    if (unit.sessions.size === 0) return [...unit.statements, ...after]
    const sessions = [...unit.sessions]
    const epochs = sessions.map((sessionId) => fence.epochOf(sessionId))
    const notHeld = sessions.filter((_, index) => epochs[index] === undefined)
    if (notHeld.length > 0) throw new LeaseLostError(`node ${fence.nodeId} does not hold the lease of session ${notHeld.join(', ')}`)
    return [fenceStatement(fence.nodeId, sessions, epochs as number[]), ...unit.statements, ...after]
  }

  #evict(unit: RecordedUnit<unknown>): void {
    if (unit.writesSessions) this.#caches.sessions.evictAll()
    if (unit.writesProjectRules) this.#caches.projectRules.evictAll()
  }
}

/** The notifications of a fenced unit, sent in its transaction: other servers hear of it only once it commits. */
function* wakeUpsOf(unit: RecordedUnit<unknown>): Generator<Statement> {
  if (unit.eventSessions.size > 0) yield notify(EVENTS_CHANNEL, payloadLists([...unit.eventSessions]))
  if (unit.deletedSessions.size > 0) yield notify(DELETED_CHANNEL, payloadLists([...unit.deletedSessions]))
  if (unit.writesClientTools) yield notify(CACHES_CHANNEL, [TOOLS_CHANGED])
  else if (unit.writesSessions || unit.writesProjectRules) yield notify(CACHES_CHANNEL, [''])
}

function fenceStatement(nodeId: string, sessions: readonly string[], epochs: readonly number[]): Statement {
  return { text: 'SELECT toolexec_fence($1, $2::text[], $3::bigint[])', values: [nodeId, sessions, epochs] }
}

/**
 * JSON lists of at most MAX_PAYLOAD_CHARS each (a notification's payload holds under 8,000
 * bytes): one notification per unit, not one per session, wakes each listener once. Events are
 * listed as [session, highest seq the unit added]: a reader that has read that far skips the read.
 */
function payloadLists<T>(entries: readonly T[]): string[] {
  const lists: string[] = []
  let list: T[] = []
  for (const entry of entries) {
    if (list.length > 0 && JSON.stringify([...list, entry]).length > MAX_PAYLOAD_CHARS) {
      lists.push(JSON.stringify(list))
      list = []
    }
    list.push(entry)
  }
  lists.push(JSON.stringify(list))
  return lists
}

// Well under PostgreSQL's 8,000 bytes, for ids of multi-byte characters.
const MAX_PAYLOAD_CHARS = 2_000

/** NOTIFY is sent on commit, and not at all when the unit fails. */
function notify(channel: string, payloads: readonly string[]): Statement {
  return { text: 'SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', values: [channel, payloads] }
}
