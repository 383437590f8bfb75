/**
 * @module The thread that holds the PostgreSQL connection: it runs each batch of statements
 * in order on its one connection, posts the reply, then wakes the store's thread, which
 * waits on the shared signal (pg-bridge.ts). A lost connection is replaced only before a
 * batch that opens no transaction of the old one. Every connection first takes the database's
 * owner lock, a session advisory lock that PostgreSQL drops with the connection (kill -9
 * included): one server per database, as one per data directory, so that no server's crash
 * recovery marks another's running calls interrupted.
 */
import { hostname } from 'node:os'
import { workerData } from 'node:worker_threads'
import pg from 'pg'
import { CONNECTION_LOST, DATABASE_IN_USE, type BatchReply, type BatchRequest, type StatementResult, type WorkerData } from './protocol.js'

// BIGINT (counts, sums, seqs) read as numbers: every one of them stays far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, Number)

const { url, signal, port } = workerData as WorkerData
const replied = new Int32Array(signal)
let client: pg.Client | undefined
let lost: string | undefined = 'not connected yet'
// Any constant of toolexec's own, other than the migrations' lock.
const OWNER_LOCK = 0x746f6f78
const APPLICATION_NAME = `toolexec (PID ${process.pid} on ${hostname()})`

class DatabaseInUse extends Error {}

async function connect(): Promise<void> {
  const next = new pg.Client({ connectionString: url, application_name: APPLICATION_NAME })
  next.on('error', (error) => {
    lost = error.message
  })
  next.on('end', () => {
    lost ??= 'the connection to PostgreSQL ended'
  })
  await next.connect()
  const owned = await next.query<{ owned: boolean }>('SELECT pg_try_advisory_lock($1) AS owned', [OWNER_LOCK])
  if (owned.rows[0]?.owned !== true) {
    const holder = await ownerOf(next)
    await next.end()
    throw new DatabaseInUse(`the database is in use by another toolexec server${holder === undefined ? '' : ` (${holder})`}`)
  }
  client = next
  lost = undefined
}

/** The application name of the connection holding the owner lock, when PostgreSQL shows it. */
async function ownerOf(connection: pg.Client): Promise<string | undefined> {
  const sql = "SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1"
  const found = await connection.query<{ name: string | null }>(sql, [OWNER_LOCK]).catch(() => undefined)
  const name = found?.rows[0]?.name
  return name === null || name === undefined || name === '' ? undefined : name
}

async function run(request: BatchRequest): Promise<BatchReply> {
  const results: StatementResult[] = []
  if (request.end === true) {
    await client?.end().catch(() => undefined)
    client = undefined
    lost = 'the store is closed'
    return { id: request.id, results }
  }
  if (lost !== undefined) {
    if (!request.mayReconnect) return { id: request.id, results, failure: { message: lost, code: CONNECTION_LOST, index: 0 } }
    try {
      await client?.end().catch(() => undefined)
      await connect()
    } catch (error) {
      lost = (error as Error).message
      const code = error instanceof DatabaseInUse ? DATABASE_IN_USE : CONNECTION_LOST
      const connectCode = (error as { code?: unknown }).code
      return { id: request.id, results, failure: { message: lost, code, index: 0, connectCode: typeof connectCode === 'string' ? connectCode : undefined } }
    }
  }
  for (const [index, statement] of request.statements.entries()) {
    try {
      const result = await (client as pg.Client).query({ name: statement.name, text: statement.text, values: statement.values as unknown[] | undefined })
      results.push({ rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? 0 })
    } catch (error) {
      const sqlState = (error as { code?: unknown }).code
      if (typeof sqlState !== 'string' || connectionEnded(sqlState)) lost ??= (error as Error).message
      const code = lost !== undefined ? CONNECTION_LOST : (sqlState as string)
      return { id: request.id, results, failure: { message: (error as Error).message, code, index } }
    }
  }
  return { id: request.id, results }
}

/** Connection exceptions (08...) and the server stopping or refusing (57P01..57P03). */
function connectionEnded(sqlState: string): boolean {
  return sqlState.startsWith('08') || sqlState.startsWith('57P')
}

// One batch at a time, in arrival order: the store's thread waits for each reply anyway.
let queue = Promise.resolve()
port.on('message', (request: BatchRequest) => {
  queue = queue.then(async () => {
    const reply = await run(request)
    port.postMessage(reply)
    Atomics.store(replied, 0, request.id)
    Atomics.notify(replied, 0)
  })
})
