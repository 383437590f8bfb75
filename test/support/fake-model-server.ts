/** A real HTTP server on 127.0.0.1 answering JSON POSTs, the base of the fake model APIs. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Answers one parsed JSON body; a thrown error is answered 400 with `errorBody` of its message. */
export type JsonRoute = (body: unknown, request: IncomingMessage) => Promise<unknown>

export interface JsonServer {
  readonly url: string
  readonly close: () => Promise<void>
}

export async function startJsonServer(routes: Record<string, JsonRoute>, errorBody: (message: string) => unknown): Promise<JsonServer> {
  const server = createServer((request, response) => void answer(routes, errorBody, request, response))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function answer(routes: Record<string, JsonRoute>, errorBody: (message: string) => unknown, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const route = routes[`${request.method} ${new URL(request.url ?? '/', 'http://x').pathname}`]
  try {
    if (route === undefined) throw new Error(`no route ${request.method} ${request.url}`)
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    send(response, 200, await route(JSON.parse(Buffer.concat(chunks).toString('utf8')), request))
  } catch (error) {
    // 400, not 5xx: the SDKs retry a 5xx, which would play a turn twice.
    send(response, 400, errorBody((error as Error).message))
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${Math.random().toString(36).slice(2)}`, 'x-request-id': `req_${Math.random().toString(36).slice(2)}` })
  response.end(JSON.stringify(body))
}

/** A random id suffix like the APIs' own. */
export function randomId(prefix: string): string {
  return `${prefix}${Math.random().toString(36).slice(2, 12)}${Math.random().toString(36).slice(2, 12)}`
}
