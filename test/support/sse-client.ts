/**
 * An SSE reader for tests, on fetch and a small parser (an EventSource hides comments and
 * the frames' own ids). It keeps every frame with its id, type and data, every comment
 * (heartbeats), and resumes with Last-Event-ID or ?after=.
 */

export interface SseFrame {
  /** The frame's own `id:` field, when it has one. */
  readonly id: string | undefined
  /** The `event:` field, `message` when absent. */
  readonly event: string
  readonly data: string
}

/** Incremental parser of the text/event-stream format: feed it chunks, read frames. */
export class SseParser {
  readonly frames: SseFrame[] = []
  readonly comments: string[] = []
  /** The last `retry:` field (the reconnection delay in ms the server asks for). */
  retry: number | undefined
  #buffer = ''
  #id: string | undefined
  #event: string | undefined
  #data: string[] = []

  /** Returns the frames completed by this chunk. */
  push(chunk: string): SseFrame[] {
    this.#buffer += chunk
    const completed: SseFrame[] = []
    let newline = this.#nextLineEnd()
    while (newline !== undefined) {
      const line = this.#buffer.slice(0, newline.at)
      this.#buffer = this.#buffer.slice(newline.at + newline.length)
      const frame = this.#line(line)
      if (frame !== undefined) completed.push(frame)
      newline = this.#nextLineEnd()
    }
    this.frames.push(...completed)
    return completed
  }

  // A lone \r at the end of a chunk may be the first half of \r\n: wait for more.
  #nextLineEnd(): { at: number; length: number } | undefined {
    const match = /\r\n|\n|\r(?!$)/.exec(this.#buffer)
    return match === null ? undefined : { at: match.index, length: match[0].length }
  }

  #line(line: string): SseFrame | undefined {
    if (line === '') return this.#dispatch()
    if (line.startsWith(':')) {
      this.comments.push(line.slice(1).trimStart())
      return undefined
    }
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    const raw = colon === -1 ? '' : line.slice(colon + 1)
    const value = raw.startsWith(' ') ? raw.slice(1) : raw
    if (field === 'id') this.#id = value
    else if (field === 'event') this.#event = value
    else if (field === 'data') this.#data.push(value)
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value)
    return undefined
  }

  #dispatch(): SseFrame | undefined {
    const hasContent = this.#data.length > 0 || this.#id !== undefined || this.#event !== undefined
    const frame = hasContent ? { id: this.#id, event: this.#event ?? 'message', data: this.#data.join('\n') } : undefined
    this.#id = undefined
    this.#event = undefined
    this.#data = []
    return frame
  }
}

/** Every complete frame of a stream's text; a frame cut off at the end is dropped. */
export function parseSse(text: string): { frames: SseFrame[]; comments: string[] } {
  const parser = new SseParser()
  parser.push(text)
  return { frames: parser.frames, comments: parser.comments }
}

/** The frame's `data` as the JSON line the server sent. */
export function dataOf<T = Record<string, unknown>>(frame: SseFrame): T {
  return JSON.parse(frame.data) as T
}

export interface SseOpenOptions {
  /** Sent as the Last-Event-ID header. */
  readonly lastEventId?: number | string
  /** Sent as ?after=. */
  readonly after?: number | string
  /** Sent as ?access_token=. */
  readonly accessToken?: string
  readonly headers?: Record<string, string>
}

type FramePredicate = (frame: SseFrame) => boolean

interface Waiter {
  readonly predicate: FramePredicate
  readonly resolve: (frame: SseFrame) => void
  readonly reject: (error: Error) => void
}

export class SseClient {
  readonly status: number
  readonly headers: Headers
  /** The reply's body when it is not a stream (an error reply). */
  readonly body: unknown
  readonly #parser = new SseParser()
  readonly #abort: AbortController
  readonly #waiters = new Set<Waiter>()
  #ended = false
  /** Settles when the server ends the stream or the client closes it. */
  readonly ended: Promise<void>

  private constructor(response: Response, abort: AbortController, body: unknown) {
    this.status = response.status
    this.headers = response.headers
    this.body = body
    this.#abort = abort
    this.ended = body === undefined ? this.#read(response) : Promise.resolve()
    if (body !== undefined) this.#ended = true
  }

  /** Opens `GET /sessions/:id/events`; a non-stream reply is read whole into `body`. */
  static async open(baseUrl: string, sessionId: string, options: SseOpenOptions = {}): Promise<SseClient> {
    const query = new URLSearchParams()
    if (options.after !== undefined) query.set('after', String(options.after))
    if (options.accessToken !== undefined) query.set('access_token', options.accessToken)
    const search = query.size > 0 ? `?${query.toString()}` : ''
    const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers }
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId)
    const abort = new AbortController()
    const response = await fetch(`${baseUrl}/sessions/${encodeURIComponent(sessionId)}/events${search}`, { headers, signal: abort.signal })
    const isStream = response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    const body = isStream ? undefined : await readBody(response)
    return new SseClient(response, abort, body)
  }

  get frames(): readonly SseFrame[] {
    return this.#parser.frames
  }

  get comments(): readonly string[] {
    return this.#parser.comments
  }

  /** The reconnection delay the server asked for (`retry:`), once it has arrived. */
  get retry(): number | undefined {
    return this.#parser.retry
  }

  /** The ids of the frames received so far, as numbers. */
  ids(): number[] {
    return this.frames.map((frame) => Number(frame.id))
  }

  get isEnded(): boolean {
    return this.#ended
  }

  /** The first frame (already received or still to come) that matches. */
  waitFor(predicate: FramePredicate, timeoutMs = 5_000): Promise<SseFrame> {
    const found = this.frames.find(predicate)
    if (found !== undefined) return Promise.resolve(found)
    if (this.#ended) return Promise.reject(this.#missing('the stream had ended'))
    return new Promise<SseFrame>((resolve, reject) => {
      const timer = setTimeout(() => settle(() => reject(this.#missing(`nothing matched within ${timeoutMs} ms`))), timeoutMs)
      const settle = (finish: () => void): void => {
        clearTimeout(timer)
        this.#waiters.delete(waiter)
        finish()
      }
      const waiter: Waiter = {
        predicate,
        resolve: (frame) => settle(() => resolve(frame)),
        reject: (error) => settle(() => reject(error)),
      }
      this.#waiters.add(waiter)
    })
  }

  waitForType(type: string, timeoutMs?: number): Promise<SseFrame> {
    return this.waitFor((frame) => frame.event === type, timeoutMs)
  }

  /** Resolves once the frame with this id has arrived. */
  waitForId(id: number, timeoutMs?: number): Promise<SseFrame> {
    return this.waitFor((frame) => Number(frame.id) === id, timeoutMs)
  }

  /** Resolves once a comment (a heartbeat) has arrived. */
  async waitForComment(timeoutMs = 5_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    while (this.comments.length === 0) {
      if (this.#ended || Date.now() > deadline) throw new Error('no comment arrived')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return this.comments[0] as string
  }

  async close(): Promise<void> {
    this.#abort.abort()
    await this.ended
  }

  async #read(response: Response): Promise<void> {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        for (const frame of this.#parser.push(decoder.decode(value, { stream: true }))) this.#offer(frame)
      }
    } catch {
      // An aborted or reset stream simply ends.
    } finally {
      this.#ended = true
      for (const waiter of [...this.#waiters]) waiter.reject(this.#missing('the stream ended'))
    }
  }

  #offer(frame: SseFrame): void {
    for (const waiter of [...this.#waiters]) if (waiter.predicate(frame)) waiter.resolve(frame)
  }

  #missing(why: string): Error {
    return new Error(`SSE: ${why}; received ${this.frames.map((frame) => `${frame.id}:${frame.event}`).join(' ')}`)
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export function openSse(baseUrl: string, sessionId: string, options?: SseOpenOptions): Promise<SseClient> {
  return SseClient.open(baseUrl, sessionId, options)
}
