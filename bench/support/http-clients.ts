/**
 * The two kinds of bench client. A toolexec client owns a session and its open SSE
 * stream: one call posts a schedule and ends when that call's ToolCallResult arrives on
 * the stream (and the 202 reply was read). A bare client posts the same body and ends
 * with the reply.
 */
import { Pool } from 'undici'
import type { LoopClient } from './client-loop.js'
import { scheduleBody } from './noop-tool.js'
import { openSse, type SseConnection } from './sse-reader.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

export interface ToolexecClientOptions {
  /** Where the session is created, when another node than the one posted to (bench:cluster). */
  readonly createOn?: Pool | undefined
  /** Told the commit time (`at`) of each call's ToolCallResult as it arrives. */
  readonly onResult?: ((at: string) => void) | undefined
}

interface Waiter {
  resolve(): void
  reject(error: Error): void
}

export class ToolexecClient implements LoopClient {
  readonly #pool: Pool
  readonly #baseUrl: string
  readonly #sessionId: string
  readonly #options: ToolexecClientOptions
  readonly #waiting = new Map<string, Waiter>()
  #stream: SseConnection | undefined
  #lastSeq = 0
  #next = 0

  /** Posts to `pool`, streams from `baseUrl`. */
  constructor(pool: Pool, baseUrl: string, sessionId: string, options: ToolexecClientOptions = {}) {
    this.#pool = pool
    this.#baseUrl = baseUrl
    this.#sessionId = sessionId
    this.#options = options
  }

  /** Creates the session and opens its SSE stream before the first call. */
  async connect(): Promise<void> {
    const created = await (this.#options.createOn ?? this.#pool).request({ path: '/sessions', method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ id: this.#sessionId }) })
    await created.body.text()
    if (created.statusCode !== 201) throw new Error(`POST /sessions answered ${created.statusCode}`)
    this.#stream = openSse(`${this.#baseUrl}/sessions/${this.#sessionId}/events`, (id, event, data) => this.#onFrame(id, event, data))
    await this.#stream.opened
  }

  async call(): Promise<void> {
    const n = this.#next++
    const callId = `c${n}`
    const result = new Promise<void>((resolve, reject) => this.#waiting.set(callId, { resolve, reject }))
    const reply = await this.#pool.request({ path: '/schedules', method: 'POST', headers: JSON_HEADERS, body: scheduleBody(this.#sessionId, callId, n) })
    const text = await reply.body.text()
    if (reply.statusCode !== 202) throw new Error(`POST /schedules answered ${reply.statusCode}: ${text}`)
    await result
  }

  close(): void {
    this.#stream?.close()
  }

  #onFrame(id: number, event: string, data: string): void {
    if (id !== this.#lastSeq + 1) this.#fail(new Error(`session ${this.#sessionId}: event id ${id} after ${this.#lastSeq}`))
    this.#lastSeq = id
    if (event !== 'ToolCallResult') return
    const parsed = JSON.parse(data) as { callId: string; at: string; result: { success: boolean; status: string } }
    this.#options.onResult?.(parsed.at)
    const waiter = this.#waiting.get(parsed.callId)
    if (waiter === undefined) return
    this.#waiting.delete(parsed.callId)
    if (parsed.result.success) waiter.resolve()
    else waiter.reject(new Error(`call ${parsed.callId} ended ${parsed.result.status}`))
  }

  #fail(error: Error): void {
    for (const waiter of this.#waiting.values()) waiter.reject(error)
    this.#waiting.clear()
  }
}

export class BarePostClient implements LoopClient {
  readonly #pool: Pool
  readonly #sessionId: string
  #next = 0

  constructor(pool: Pool, sessionId: string) {
    this.#pool = pool
    this.#sessionId = sessionId
  }

  async call(): Promise<void> {
    const n = this.#next++
    const reply = await this.#pool.request({ path: '/schedules', method: 'POST', headers: JSON_HEADERS, body: scheduleBody(this.#sessionId, `c${n}`, n) })
    const text = await reply.body.text()
    if (reply.statusCode !== 202) throw new Error(`bare POST answered ${reply.statusCode}: ${text}`)
  }
}

export function poolFor(url: string, connections: number): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000 })
}
