/**
 * @module What the store reads most, kept as committed: the sessions (read on every call) and
 * the project rules of each workspace. Every write of those rows goes through this store and
 * forgets what it cached, so a unit that rolls back leaves nothing stale behind.
 */
import type { SessionRecord } from '../../contracts/store.js'
import { toSessionRecord, type RawRow } from '../rows.js'
import type { Db } from './database.js'
import type { Statements } from './statements.js'

export class CommittedCache {
  readonly #db: Db
  readonly #s: Statements
  readonly #sessions = new Map<string, SessionRecord>()
  readonly #projectRules = new Map<string, string[]>()

  constructor(db: Db, statements: Statements) {
    this.#db = db
    this.#s = statements
  }

  session(id: string): SessionRecord | undefined {
    const cached = this.#sessions.get(id)
    if (cached !== undefined) return cached
    const row = this.#s.getSession.get(id) as RawRow | undefined
    if (row === undefined) return undefined
    const session = toSessionRecord(row)
    // Inside a transaction the row may yet be rolled back, so only committed state is kept.
    if (!this.#db.inTransaction) this.#sessions.set(id, session)
    return session
  }

  projectRulesOf(workspace: string): string[] {
    const cached = this.#projectRules.get(workspace)
    if (cached !== undefined) return cached
    const rules = this.#s.projectRulesOf.pluck().all(workspace) as string[]
    if (!this.#db.inTransaction) this.#projectRules.set(workspace, rules)
    return rules
  }

  forgetSession(id: string): void {
    this.#sessions.delete(id)
  }

  /** A rule written for one request may land in any workspace: all are read again. */
  forgetProjectRules(): void {
    this.#projectRules.clear()
  }
}
