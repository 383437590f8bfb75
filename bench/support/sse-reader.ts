/**
 * A small, fast SSE client for benches: one raw http.get connection and an incremental
 * parser that hands each complete frame's id, event type and data to a callback. Comment
 * lines (heartbeats) are skipped; a multi-line data field is joined with `\n`.
 */
import http from 'node:http'

export type FrameHandler = (id: number, event: string, data: string) => void

export class SseParser {
  readonly #onFrame: FrameHandler
  #pending = ''

  constructor(onFrame: FrameHandler) {
    this.#onFrame = onFrame
  }

  push(chunk: string): void {
    const text = this.#pending.length === 0 ? chunk : this.#pending + chunk
    let start = 0
    for (let end = text.indexOf('\n\n', start); end !== -1; end = text.indexOf('\n\n', start)) {
      this.#frame(text, start, end)
      start = end + 2
    }
    this.#pending = start === 0 ? text : text.slice(start)
  }

  #frame(text: string, start: number, end: number): void {
    let id = Number.NaN
    let event = 'message'
    let data: string | undefined
    let line = start
    while (line < end) {
      let lineEnd = text.indexOf('\n', line)
      if (lineEnd === -1 || lineEnd > end) lineEnd = end
      const colon = text.indexOf(':', line)
      if (colon !== line && colon !== -1 && colon < lineEnd) {
        const field = text.slice(line, colon)
        const valueStart = text.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1
        const value = text.slice(valueStart, lineEnd)
        if (field === 'id') id = Number(value)
        else if (field === 'event') event = value
        else if (field === 'data') data = data === undefined ? value : `${data}\n${value}`
      }
      line = lineEnd + 1
    }
    if (data !== undefined || !Number.isNaN(id)) this.#onFrame(id, event, data ?? '')
  }
}

export interface SseConnection {
  /** Resolves once the response headers arrived with status 200. */
  readonly opened: Promise<void>
  /** Resolves when the server ends the stream or the connection closes. */
  readonly ended: Promise<void>
  /** Bytes of body received so far. */
  bytes(): number
  close(): void
}

export function openSse(url: string, onFrame: FrameHandler, headers: Record<string, string> = {}): SseConnection {
  const parser = new SseParser(onFrame)
  let received = 0
  let request: http.ClientRequest | undefined
  let settleEnded: () => void = () => {}
  const ended = new Promise<void>((resolve) => {
    settleEnded = resolve
  })
  const opened = new Promise<void>((resolve, reject) => {
    request = http.get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`SSE ${url} answered ${response.statusCode}`))
        response.resume()
        return
      }
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        received += Buffer.byteLength(chunk)
        parser.push(chunk)
      })
      response.on('close', settleEnded)
      resolve()
    })
    request.on('error', (error) => {
      reject(error)
      settleEnded()
    })
  })
  return {
    opened,
    ended,
    bytes: () => received,
    close: () => request?.destroy(),
  }
}
