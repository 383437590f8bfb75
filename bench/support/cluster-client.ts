/**
 * A bench client of a cluster: it creates its session on one node, posts its schedules to
 * another (which passes them on to the owner) and reads the session's stream from a third,
 * so each call crosses nodes as a load balancer would have it. A call ends when its
 * ToolCallResult arrives on the stream; the time from the event's commit (its `at`, taken by
 * the owner as it commits) to its arrival is kept when the stream is not the owner's.
 */
import type { Pool } from 'undici'
import type { LoopClient } from './client-loop.js'
import { scheduleBody } from './noop-tool.js'
import { openSse, type SseConnection } from './sse-reader.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

export interface ClusterClientNodes {
  /** Where the session is created: its owner. */
  readonly owner: Pool
  /** Where its schedules are posted. */
  readonly poster: Pool
  /** The base URL its stream is read from. */
  readonly streamUrl: string
  /** Whether the stream's node is another than the owner (its arrivals count as cross-node latency). */
  readonly crossNode: boolean
}

export class ClusterClient implements LoopClient {
  readonly #nodes: ClusterClientNodes
  readonly #sessionId: string
  readonly #waiting = new Map<string, { resolve(): void; reject(error: Error): void }>()
  /** Milliseconds from an event's commit on the owner to its arrival here, for streams of another node. */
  readonly crossNodeMs: number[] = []
  #stream: SseConnection | undefined
  #lastSeq = 0
  #next = 0

  constructor(nodes: ClusterClientNodes, sessionId: string) {
    this.#nodes = nodes
    this.#sessionId = sessionId
  }

  async connect(): Promise<void> {
    const created = await this.#nodes.owner.request({ path: '/sessions', method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ id: this.#sessionId }) })
    await created.body.text()
    if (created.statusCode !== 201) throw new Error(`POST /sessions answered ${created.statusCode}`)
    this.#stream = openSse(`${this.#nodes.streamUrl}/sessions/${this.#sessionId}/events`, (id, event, data) => this.#onFrame(id, event, data))
    await this.#stream.opened
  }

  async call(): Promise<void> {
    const n = this.#next++
    const callId = `c${n}`
    const result = new Promise<void>((resolve, reject) => this.#waiting.set(callId, { resolve, reject }))
    const reply = await this.#nodes.poster.request({ path: '/schedules', method: 'POST', headers: JSON_HEADERS, body: scheduleBody(this.#sessionId, callId, n) })
    const text = await reply.body.text()
    if (reply.statusCode !== 202) throw new Error(`POST /schedules answered ${reply.statusCode}: ${text}`)
    await result
  }

  close(): void {
    this.#stream?.close()
  }

  #onFrame(id: number, event: string, data: string): void {
    const arrived = Date.now()
    if (id !== this.#lastSeq + 1) this.#fail(new Error(`session ${this.#sessionId}: event id ${id} after ${this.#lastSeq}`))
    this.#lastSeq = id
    if (event !== 'ToolCallResult') return
    const parsed = JSON.parse(data) as { callId: string; at: string; result: { success: boolean; status: string } }
    if (this.#nodes.crossNode) this.crossNodeMs.push(arrived - Date.parse(parsed.at))
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
