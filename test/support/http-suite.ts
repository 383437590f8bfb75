/** One real server per test file, with the SSE streams a test opened closed after it. */
import { afterAll, afterEach, beforeAll } from 'vitest'
import { startTestServer, type TestServer, type TestServerOptions } from './server.js'
import { openSse, type SseClient, type SseOpenOptions } from './sse-client.js'

export interface HttpSuite {
  /** A name no other test of the file uses. */
  readonly fresh: (prefix: string) => string
  /** Opens the session's stream; it is closed after the test. */
  readonly watch: (server: TestServer, sessionId: string, options?: SseOpenOptions) => Promise<SseClient>
}

/** Registers the file's hooks; `onStart` receives the server once it listens. */
export function useHttpSuite(onStart: (server: TestServer) => void, options: TestServerOptions = {}): HttpSuite {
  let server: TestServer | undefined
  let streams: SseClient[] = []
  let counter = 0
  beforeAll(async () => {
    server = await startTestServer(options)
    onStart(server)
  })
  afterAll(async () => {
    await server?.close()
  })
  afterEach(async () => {
    await Promise.all(streams.map((stream) => stream.close()))
    streams = []
  })
  return {
    fresh: (prefix) => `${prefix}-${++counter}`,
    watch: async (target, sessionId, openOptions) => {
      const stream = await openSse(target.url, sessionId, openOptions)
      streams.push(stream)
      return stream
    },
  }
}
