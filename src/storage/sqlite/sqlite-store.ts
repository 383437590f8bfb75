/**
 * @module Every row toolexec keeps, on SQLite, behind statements prepared once. better-sqlite3
 * answers at once: a read settles its promise in place, and a unit of work is built and
 * committed in one transaction, without yielding, before `commit` returns.
 */
import type { ApprovalReads, ArtifactReads, AuditReads, BackgroundTaskReads, EventReads, KeyReads, RuleReads, ScheduleReads, SessionReads, Store, UnitOfWork } from '../../contracts/store.js'
import { sha256Hex } from '../audit-chain.js'
import { CommittedCache } from './committed-cache.js'
import type { Db } from './database.js'
import { conflictOr } from './sqlite-errors.js'
import {
  SqliteApprovalReads,
  SqliteArtifactReads,
  SqliteAuditReads,
  SqliteBackgroundTaskReads,
  SqliteEventReads,
  SqliteKeyReads,
  SqliteRuleReads,
  SqliteScheduleReads,
  SqliteSessionReads,
} from './sqlite-reads.js'
import { SqliteUnitOfWork } from './sqlite-unit-of-work.js'
import { prepareStatements } from './statements.js'

export class SqliteStore implements Store {
  readonly db: Db
  readonly sessions: SessionReads
  readonly schedules: ScheduleReads
  readonly events: EventReads
  readonly approvals: ApprovalReads
  readonly rules: RuleReads
  readonly artifacts: ArtifactReads
  readonly tasks: BackgroundTaskReads
  readonly keys: KeyReads
  readonly audit: AuditReads
  readonly #unit: SqliteUnitOfWork
  // One wrapper for every transaction: building one per call costs more than the BEGIN itself.
  readonly #transaction: (build: (unit: UnitOfWork) => unknown) => unknown

  constructor(db: Db) {
    this.db = db
    // The audit chain's hash, computed in the unit's statement as PostgreSQL computes it with its own sha256().
    db.function('toolexec_sha256', { deterministic: true }, (text) => sha256Hex(String(text)))
    const statements = prepareStatements(db)
    const cache = new CommittedCache(db, statements)
    this.sessions = new SqliteSessionReads(statements, cache)
    this.schedules = new SqliteScheduleReads(statements)
    this.events = new SqliteEventReads(statements)
    this.approvals = new SqliteApprovalReads(statements)
    this.rules = new SqliteRuleReads(statements, cache)
    this.artifacts = new SqliteArtifactReads(statements)
    this.tasks = new SqliteBackgroundTaskReads(statements)
    this.keys = new SqliteKeyReads(statements)
    this.audit = new SqliteAuditReads(statements)
    this.#unit = new SqliteUnitOfWork(statements, cache)
    this.#transaction = db.transaction((build: (unit: UnitOfWork) => unknown) => this.#unit.build(build))
  }

  commit<T>(build: (unit: UnitOfWork) => T): Promise<T> {
    // Thrown, not returned: the build it was called from fails, and its unit rolls back whole.
    if (this.#unit.building) throw new Error('commit was called inside the build of another unit of work: record those writes in the unit being built')
    try {
      return Promise.resolve(this.#transaction(build) as T)
    } catch (error) {
      return Promise.reject(conflictOr(error))
    }
  }
}

/** The SQLite database under `store`, for what only SQLite has (tests that look into the file, the bench's pragmas). */
export function sqliteDatabaseOf(store: Store): Db {
  if (!(store instanceof SqliteStore)) throw new Error('this store is not SQLite: the check needs the SQLite backend')
  return store.db
}
