/**
 * @module Every row toolexec keeps, in PostgreSQL: reads are one round trip each, and a unit of
 * work is recorded whole, then sent as one query text that PostgreSQL commits as one
 * transaction (pg-connection.ts), on whichever connection of the pool has the least to do
 * (pg-pool.ts). Nothing here waits for the database on the event loop.
 */
import type { ApprovalReads, ArtifactReads, EventReads, RuleReads, ScheduleReads, SessionReads, SessionRecord, Store, UnitOfWork } from '../../contracts/store.js'
import { CommittedCache } from './committed-cache.js'
import type { PgSender, Traffic } from './pg-connection.js'
import { approvalReads, artifactReads, eventReads, ruleReads, scheduleReads, sessionReads, type ReadCaches } from './postgres-reads.js'
import { recordUnit, type RecordedUnit } from './unit-recorder.js'

export class PostgresStore implements Store {
  readonly sessions: SessionReads
  readonly schedules: ScheduleReads
  readonly events: EventReads
  readonly approvals: ApprovalReads
  readonly rules: RuleReads
  readonly artifacts: ArtifactReads
  readonly #connection: PgSender
  #building = false
  // Sessions are read on every call and project rules on every permission check; only this store writes either.
  readonly #caches: ReadCaches = { sessions: new CommittedCache<SessionRecord>(), projectRules: new CommittedCache<string[]>() }

  constructor(connection: PgSender) {
    this.#connection = connection
    this.sessions = sessionReads(connection, this.#caches)
    this.schedules = scheduleReads(connection)
    this.events = eventReads(connection)
    this.approvals = approvalReads(connection)
    this.rules = ruleReads(connection, this.#caches)
    this.artifacts = artifactReads(connection)
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
      await this.#connection.commit(unit.statements)
    } finally {
      this.#evict(unit)
    }
    return unit.value
  }

  #evict(unit: RecordedUnit<unknown>): void {
    if (unit.writesSessions) this.#caches.sessions.evictAll()
    if (unit.writesProjectRules) this.#caches.projectRules.evictAll()
  }
}
