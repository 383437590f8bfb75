/**
 * A web page on an origin of its own (a local HTTP server on another port) that calls a
 * toolexec server the way a browser application would: fetch with the bearer token, an
 * EventSource with ?access_token=. Tests drive it through `window.toolexec`.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the page keeps of each event it received: the frame's id, its name and its data. */
export interface SeenEvent {
  readonly id: string
  readonly type: string
  readonly data: Record<string, unknown>
}

export interface PageReply {
  /** 0 when fetch itself failed (a CORS refusal, a refused connection). */
  readonly status: number
  readonly body: unknown
  /** Why fetch failed, e.g. `TypeError: Failed to fetch`. */
  readonly error?: string
}

/** The page's API, as `window.toolexec` (`globalThis.toolexec` in the code a test runs in the page). */
export interface PageApi {
  call(method: string, route: string, body?: unknown, token?: string): Promise<PageReply>
  watch(sessionId: string, eventTypes: readonly string[]): void
  unwatch(): void
  readonly seen: SeenEvent[]
  readonly opens: number
  readonly errors: number
}

declare global {
  // Only in the page; declared for the functions a test passes to page.evaluate.
  var toolexec: PageApi
}

// Plain script: it runs as the page's own code, not as code the test injects.
const PAGE_SCRIPT = `
const api = document.documentElement.dataset.api
const token = document.documentElement.dataset.token
let source
window.toolexec = {
  seen: [],
  opens: 0,
  errors: 0,
  async call(method, route, body, bearer) {
    const headers = { authorization: 'Bearer ' + (bearer ?? token) }
    if (body !== undefined) headers['content-type'] = 'application/json'
    try {
      const response = await fetch(api + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      const text = await response.text()
      return { status: response.status, body: text.length > 0 ? JSON.parse(text) : null }
    } catch (error) {
      // What a page sees when CORS refuses it: no status, no body, only this.
      return { status: 0, body: null, error: String(error) }
    }
  },
  watch(sessionId, eventTypes) {
    source = new EventSource(api + '/sessions/' + encodeURIComponent(sessionId) + '/events?access_token=' + encodeURIComponent(token))
    source.onopen = () => { window.toolexec.opens += 1 }
    source.onerror = () => { window.toolexec.errors += 1 }
    const keep = (event) => window.toolexec.seen.push({ id: event.lastEventId, type: event.type, data: JSON.parse(event.data) })
    // Frames without an event name, or with one the page does not listen for, would be lost
    // silently; 'message' catches the first kind, the comparison with the server's history the second.
    source.onmessage = keep
    for (const type of eventTypes) source.addEventListener(type, keep)
  },
  unwatch() {
    source?.close()
  },
}
`

function pageHtml(api: string, token: string): string {
  const attribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')
  return [
    '<!doctype html>',
    `<html data-api="${attribute(api)}" data-token="${attribute(token)}">`,
    // No favicon request: a 404 for it would be a failed request of its own.
    '<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>toolexec from another origin</title></head>',
    `<body><script>${PAGE_SCRIPT}</script></body>`,
    '</html>',
  ].join('\n')
}

export interface PageServer {
  /** The page's origin, e.g. http://127.0.0.1:41234: not the API's. */
  readonly origin: string
  /** Points the page at an API; the next load of `origin/` uses it. */
  serve(api: string, token: string): void
  close(): Promise<void>
}

export async function startPageServer(): Promise<PageServer> {
  let html = ''
  const server = http.createServer((request, response) => {
    if (request.url !== '/') {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    serve: (api, token) => {
      html = pageHtml(api, token)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
