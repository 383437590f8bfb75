/**
 * @module The store's connections to PostgreSQL: a few pipelined ones. Each operation goes to
 * the connection with the fewest answers outstanding, so a slow unit holds only the
 * connection it is on: other sessions' units and reads go on the others.
 */
import type pg from 'pg'
import type { RawRow } from '../rows.js'
import { connectPipelined } from './pg-client.js'
import { PgConnection, type PgSender, type Traffic } from './pg-connection.js'
import type { Statement } from './statements.js'

/** Enough for a slow session not to hold the others; the others open on first need. */
export const POOL_SIZE = 4

export class PgPool implements PgSender {
  readonly #connections: readonly PgConnection[]

  /** `first` is connected already (it applied the migrations). */
  constructor(url: string, first: pg.Client, size = POOL_SIZE) {
    const others = Array.from({ length: size - 1 }, () => new PgConnection(url, connectPipelined))
    this.#connections = [new PgConnection(url, connectPipelined, first), ...others]
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

  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()))
  }

  /** The connection with the fewest answers outstanding (one not opened yet opens); while the first is lost, the first, which connects again. */
  #leastBusy(): PgConnection {
    const first = this.#connections[0] as PgConnection
    if (!first.healthy) return first
    let best = first
    for (const connection of this.#connections) if (connection.pending < best.pending) best = connection
    return best
  }
}
