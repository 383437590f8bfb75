/**
 * @module One PostgreSQL connection of the store's pool (pg-pool.ts), on the event loop's
 * thread, which never waits for it. Operations are sent in the order they were called,
 * pipelined (none waits for the answers before it), each in one round trip: a read one
 * prepared statement, a unit of work one query text (sql-literals.ts). A lost connection is
 * replaced before the next operation is sent; since no transaction spans operations, none is
 * lost with it.
 */
import type pg from 'pg'
import type { RawRow } from '../rows.js'
import { CommitUnknownError } from '../../contracts/store.js'
import { connectError, isUnavailable, storeError, unavailable } from './pg-errors.js'
import { unitText } from './sql-literals.js'
import type { Statement } from './statements.js'

/** What the connection has sent so far. */
export interface Traffic {
  readonly roundTrips: number
  readonly statements: number
}

const CLOSED = 'the store is closed'

/** What the store sends its reads and units through: one connection, or the pool of them. */
export interface PgSender {
  rows(statement: Statement): Promise<RawRow[]>
  commit(statements: readonly Statement[]): Promise<void>
  readonly traffic: Traffic
}

/** Opens a new connection to the database. */
export type Connect = (url: string) => Promise<pg.Client>

export class PgConnection implements PgSender {
  readonly #url: string
  readonly #connect: Connect
  #client: pg.Client | undefined
  /** Why the connection is gone; undefined while it is up. */
  #lost: string | undefined = 'not connected yet'
  /** Operations sent or waiting to be, not yet answered. */
  #pending = 0
  /** Settles once the operation called last has been sent (or failed to be): the next one goes after it. */
  #sent: Promise<unknown> = Promise.resolve()
  #closed = false
  #roundTrips = 0
  #statements = 0

  /** `client`, when given, is connected already (by `connect`); else the first operation connects. */
  constructor(url: string, connect: Connect, client?: pg.Client) {
    this.#url = url
    this.#connect = connect
    if (client !== undefined) this.#adopt(client)
  }

  /** Operations not yet answered: the pool sends the next one where there are fewest. */
  get pending(): number {
    return this.#pending
  }

  /** Whether the connection is up (as far as it knows). */
  get healthy(): boolean {
    return this.#client !== undefined && this.#lost === undefined
  }

  get traffic(): Traffic {
    return { roundTrips: this.#roundTrips, statements: this.#statements }
  }

  /** A read: one statement, prepared once per connection when it is named. */
  async rows(statement: Statement): Promise<RawRow[]> {
    const values = statement.values === undefined ? undefined : [...statement.values]
    const result = await this.#send(1, (client) => client.query<RawRow>({ name: statement.name, text: statement.text, values }))
    return result.rows
  }

  /** A unit of work's writes, sent as one query text: PostgreSQL commits them together or not at all. */
  async commit(statements: readonly Statement[]): Promise<void> {
    const text = unitText(statements)
    await this.#send(statements.length, (client) => client.query(text))
  }

  /** Undefined while the database answers; else why it does not, after one attempt to connect again. */
  async trouble(): Promise<string | undefined> {
    if (this.#lost === undefined && (await this.#answers())) return undefined
    // The loss is known by now, so this round trip connects again first.
    return (await this.#answers()) ? undefined : (this.#lost ?? CLOSED)
  }

  /** Ends the connection once every operation called before is sent. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#sent
    const client = this.#client
    this.#client = undefined
    this.#lost = CLOSED
    await client?.end().catch(() => undefined)
  }

  async #answers(): Promise<boolean> {
    try {
      await this.rows({ text: 'SELECT 1' })
      return true
    } catch (error) {
      if (isUnavailable(error)) return false
      throw error
    }
  }

  /** Sends `query` after every operation called before it; its answer (or mapped failure) comes back when the database gives it. */
  #send<T>(statements: number, query: (client: pg.Client) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(unavailable(CLOSED))
    let answer: Promise<T> | undefined
    const sent = this.#sent.then(async () => {
      const client = await this.#usable()
      this.#roundTrips++
      this.#statements += statements
      answer = query(client).catch((error: unknown) => {
        throw this.#failed(client, error)
      })
    })
    this.#sent = sent.catch(() => undefined)
    this.#pending++
    return sent.then(() => answer as Promise<T>).finally(() => this.#pending--)
  }

  async #usable(): Promise<pg.Client> {
    if (this.#client !== undefined && this.#lost === undefined) return this.#client
    return this.#reconnect()
  }

  // The old connection is ended first, so that a connection half gone holds nothing on the server.
  async #reconnect(): Promise<pg.Client> {
    const old = this.#client
    this.#client = undefined
    await old?.end().catch(() => undefined)
    try {
      const client = await this.#connect(this.#url)
      this.#adopt(client)
      return client
    } catch (error) {
      const failure = connectError(error)
      this.#lost = error instanceof Error ? error.message : String(error)
      throw failure
    }
  }

  #adopt(client: pg.Client): void {
    this.#client = client
    this.#lost = undefined
    client.on('error', (error) => this.#lose(client, error.message))
    client.on('end', () => this.#lose(client, 'the connection to PostgreSQL ended'))
  }

  #failed(client: pg.Client, error: unknown): Error {
    const failure = queryLost(storeError(error))
    if (isUnavailable(failure)) this.#lose(client, error instanceof Error ? error.message : String(error))
    return failure
  }

  /** Only the connection in use counts: an old one ending late says nothing of it. */
  #lose(client: pg.Client, reason: string): void {
    if (client === this.#client) this.#lost ??= reason
  }
}

/** A query whose connection was lost after it was sent: the database may have committed it. */
function queryLost(failure: Error): Error {
  if (!isUnavailable(failure)) return failure
  const cause = new CommitUnknownError(failure.message)
  return unavailable(failure.message.replace(/^The database does not answer \((.*)\); retry once it is back$/, '$1'), cause)
}
