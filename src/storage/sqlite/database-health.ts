/**
 * @module Whether the open database still answers: damage a query met (SQLITE_CORRUPT,
 * SQLITE_NOTADB) is remembered until the next start, and a cheap read of the pages every
 * write goes through (the schema, the ends of the busiest tables) finds damage there.
 * A page nothing has read since the start's quick_check can hide damage until a query does.
 */
import type { Db } from './database.js'
import { isDatabaseCorruption } from './sqlite-errors.js'

const PROBE = 'SELECT (SELECT count(*) FROM sqlite_master), (SELECT max(id) FROM events), (SELECT max(rowid) FROM tool_calls), (SELECT max(rowid) FROM schedules)'

export class DatabaseHealth {
  readonly #db: Db
  #damage: string | undefined

  constructor(db: Db) {
    this.#db = db
  }

  /** Remembers `error` when it says the database is damaged; anything else is ignored. */
  note(error: unknown): void {
    if (isDatabaseCorruption(error)) this.#damage ??= (error as Error).message
  }

  /** What is wrong with the database, or undefined when it answers. */
  damage(): string | undefined {
    if (this.#damage !== undefined) return this.#damage
    try {
      this.#db.prepare(PROBE).get()
    } catch (error) {
      if (!isDatabaseCorruption(error)) throw error
      this.note(error)
    }
    return this.#damage
  }
}
