/**
 * @module The store's connections to PostgreSQL: a few pipelined ones, the first holding the
 * database's owner lock. Each operation goes to the connection with the fewest answers
 * outstanding, so a slow unit holds only the connection it is on: other sessions' units and
 * reads go on the others. While the owner's connection is lost, everything goes to it: it
 * connects again, retaking the lock, before anything else is written.
 */
import type pg from 'pg'
import type { RawRow } from '../rows.js'
import { connectOwning, connectPlain } from './owned-client.js'
import { PgConnection, type PgSender, type Traffic } from './pg-connection.js'
import type { Statement } from './statements.js'

/** Enough for a slow session not to hold the others; the others open on first need. */
export const POOL_SIZE = 4

export class PgPool implements PgSender {
  readonly #owner: PgConnection
  readonly #connections: readonly PgConnection[]

  /** `owner` holds the owner lock already (connectOwning). */
  constructor(url: string, owner: pg.Client, size = POOL_SIZE) {
    this.#owner = new PgConnection(url, connectOwning, owner)
    const others = Array.from({ length: size - 1 }, () => new PgConnection(url, connectPlain))
    this.#connections = [this.#owner, ...others]
  }

  rows(statement: Statement): Promise<RawRow[]> {
    return this.#leastBusy().rows(statement)
  }

  commit(statements: readonly Statement[]): Promise<void> {
    return this.#leastBusy().commit(statements)
  }

  get traffic(): Traffic {
    let roundTrips = 0
    let statements = 0
    for (const connection of this.#connections) {
      roundTrips += connection.traffic.roundTrips
      statements += connection.traffic.statements
    }
    return { roundTrips, statements }
  }

  /** Undefined while the database answers; else why it does not (asked where it does not wait behind a slow unit). */
  trouble(): Promise<string | undefined> {
    return this.#leastBusy().trouble()
  }

  /** The owner's connection ends last: the lock is free once every connection is closed. */
  async close(): Promise<void> {
    await Promise.all(this.#connections.filter((connection) => connection !== this.#owner).map((connection) => connection.close()))
    await this.#owner.close()
  }

  #leastBusy(): PgConnection {
    if (!this.#owner.healthy) return this.#owner
    let best = this.#owner
    for (const connection of this.#connections) if (connection.pending < best.pending) best = connection
    return best
  }
}
