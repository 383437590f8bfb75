/**
 * @module Pages of events asked for in one turn of the event loop, read in one round trip. A
 * commit of another server wakes every stream of the sessions it wrote at once, and each reads
 * its page: one query for all of them instead of one each (on PostgreSQL, each a round trip and
 * a transaction). A page asked for alone is read as before.
 */
import type { StoredEvent } from '../../contracts/store.js'
import type { RawRow } from '../rows.js'
import type { PgSender } from './pg-connection.js'
import { statement } from './statements.js'

export interface PageRequest {
  readonly sessionId: string
  readonly afterSeq: number
  readonly limit: number
  readonly maxChars: number
}

interface Waiting extends PageRequest {
  readonly resolve: (page: StoredEvent[]) => void
  readonly reject: (error: unknown) => void
}

export class EventPageBatch {
  readonly #connection: PgSender
  #waiting: Waiting[] = []

  constructor(connection: PgSender) {
    this.#connection = connection
  }

  page(request: PageRequest): Promise<StoredEvent[]> {
    return new Promise<StoredEvent[]>((resolve, reject) => {
      if (this.#waiting.length === 0) queueMicrotask(() => this.#send())
      this.#waiting.push({ ...request, resolve, reject })
    })
  }

  #send(): void {
    const batch = this.#waiting
    this.#waiting = []
    if (batch.length === 1) {
      const only = batch[0] as Waiting
      pageOf(this.#connection, only).then(only.resolve, only.reject)
      return
    }
    pagesOf(this.#connection, batch).then(
      (pages) => batch.forEach((request, index) => request.resolve(pages[index] ?? [])),
      (error: unknown) => batch.forEach((request) => request.reject(error)),
    )
  }
}

async function pageOf(connection: PgSender, request: PageRequest): Promise<StoredEvent[]> {
  const { sessionId, afterSeq, limit, maxChars } = request
  if (maxChars === Infinity) return (await connection.rows(statement('eventsAfter', sessionId, afterSeq, limit))) as unknown as StoredEvent[]
  return pageUpTo((await connection.rows(statement('eventsAfterUpTo', sessionId, afterSeq, limit, maxChars))) as unknown as StoredEvent[], maxChars)
}

async function pagesOf(connection: PgSender, requests: readonly PageRequest[]): Promise<StoredEvent[][]> {
  const rows = await connection.rows(
    statement(
      'eventsAfterEach',
      requests.map((request) => request.sessionId),
      requests.map((request) => request.afterSeq),
      requests.map((request) => request.limit),
      requests.map((request) => (request.maxChars === Infinity ? null : request.maxChars)),
    ),
  )
  const candidates: StoredEvent[][] = requests.map(() => [])
  for (const row of rows) candidates[Number(row.n) - 1]?.push(toEvent(row))
  return candidates.map((events, index) => pageUpTo(events, (requests[index] as PageRequest).maxChars))
}

function toEvent(row: RawRow): StoredEvent {
  return { sessionId: String(row.sessionId), seq: Number(row.seq), type: String(row.type), data: String(row.data) }
}

/** The candidates up to the one that brings the page's data to `maxChars` characters, as JavaScript counts them. */
export function pageUpTo(candidates: readonly StoredEvent[], maxChars: number): StoredEvent[] {
  if (maxChars === Infinity) return [...candidates]
  const page: StoredEvent[] = []
  let chars = 0
  for (const event of candidates) {
    page.push(event)
    chars += event.data.length
    if (chars >= maxChars) break
  }
  return page
}
