/**
 * @module A new connection of the store's pool. Several servers may use one database (a
 * cluster, see contracts/cluster.ts): no connection holds a lock on the database; each
 * session's lease says which server writes it.
 */
import { hostname } from 'node:os'
import pg from 'pg'

/** How long a connection attempt or a statement may take before the database counts as gone. */
export const ANSWER_TIMEOUT_MS = 30_000
const APPLICATION_NAME = `toolexec (PID ${process.pid} on ${hostname()})`

/** A new connection, pipelined: each statement is sent at once, in call order, without waiting for the answers before it. */
export async function connectPipelined(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: APPLICATION_NAME,
    pipeline: true,
    query_timeout: ANSWER_TIMEOUT_MS,
    connectionTimeoutMillis: ANSWER_TIMEOUT_MS,
    keepAlive: true,
  })
  // BIGINT (counts, sums, seqs) read as numbers: every one of them stays far below 2^53.
  client.setTypeParser(pg.types.builtins.INT8, Number)
  // Unheard, a socket's error would end the process; the connection's owner hears of it by 'end' and by its failing statements.
  client.on('error', () => undefined)
  try {
    await client.connect()
    return client
  } catch (error) {
    await client.end().catch(() => undefined)
    throw error
  }
}
