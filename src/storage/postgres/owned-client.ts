/**
 * @module A connection to the database that holds its owner lock: a session advisory lock that
 * PostgreSQL drops with the connection (kill -9 included). One server per database, as one per
 * data directory, so that no server's crash recovery marks another's running calls interrupted.
 */
import { hostname } from 'node:os'
import pg from 'pg'
import { DatabaseInUseError } from './pg-errors.js'

/** How long a connection attempt or a statement may take before the database counts as gone. */
export const ANSWER_TIMEOUT_MS = 30_000
// Any constant of toolexec's own, other than the migrations' lock.
const OWNER_LOCK = 0x746f6f78
const APPLICATION_NAME = `toolexec (PID ${process.pid} on ${hostname()})`
const OWNER_SQL = "SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1"

/**
 * A new connection holding the owner lock.
 * @throws DatabaseInUseError when another server holds the lock, naming it
 */
export async function connectOwning(url: string): Promise<pg.Client> {
  const client = newClient(url)
  // Unheard, a socket's error would end the process; the connection's owner hears of it by 'end' and by its failing statements.
  client.on('error', () => undefined)
  try {
    await client.connect()
    await takeOwnerLock(client)
    return client
  } catch (error) {
    await client.end().catch(() => undefined)
    throw error
  }
}

/** A new connection without the owner lock: one more of the pool, beside the owner's. */
export async function connectPlain(url: string): Promise<pg.Client> {
  const client = newClient(url)
  client.on('error', () => undefined)
  try {
    await client.connect()
    return client
  } catch (error) {
    await client.end().catch(() => undefined)
    throw error
  }
}

// Pipelined: each statement is sent at once, in call order, without waiting for the answers before it.
function newClient(url: string): pg.Client {
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
  return client
}

async function takeOwnerLock(client: pg.Client): Promise<void> {
  const owned = await client.query<{ owned: boolean }>('SELECT pg_try_advisory_lock($1) AS owned', [OWNER_LOCK])
  if (owned.rows[0]?.owned === true) return
  const holder = await ownerOf(client)
  throw new DatabaseInUseError(`the database is in use by another toolexec server${holder === undefined ? '' : ` (${holder})`}`)
}

/** The application name of the connection holding the owner lock, when PostgreSQL shows it. */
async function ownerOf(client: pg.Client): Promise<string | undefined> {
  const found = await client.query<{ name: string | null }>(OWNER_SQL, [OWNER_LOCK]).catch(() => undefined)
  const name = found?.rows[0]?.name
  return name === null || name === undefined || name === '' ? undefined : name
}
