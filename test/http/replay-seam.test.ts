import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { openSse } from '../support/sse-client.js'

const STORED = 3_000
const LIVE = 200

// Large frames fill the socket, so the replay waits for drains while live events arrive.
const PADDING = 'x'.repeat(8_000)

function progress(sessionId: string, n: number): ExecutorEvent {
  return { type: 'ToolCallProgress', sessionId, callId: 'c', toolName: 'T', progress: { n, padding: PADDING } }
}

describe('replay seam under live traffic', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ streamLimits: { replayPage: 100, maxQueuedFrames: 100_000 } })
  })
  afterAll(async () => {
    await server.close()
  })

  it('R37 a long paged replay with live events arriving meanwhile delivers every id once and in order', async () => {
    await server.json('POST', '/sessions', { id: 'seam' })
    const { journal } = server.runtime
    for (let n = 0; n < STORED; n++) void journal.append(progress('seam', n))
    await journal.flush()
    const stream = await openSse(server.url, 'seam', { after: 0 })
    for (let n = 0; n < LIVE; n++) {
      await journal.append(progress('seam', STORED + n))
      if (n % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    }
    await stream.waitForId(STORED + LIVE, 15_000)
    const ids = stream.ids()
    await stream.close()
    expect(ids).toEqual(Array.from({ length: STORED + LIVE }, (_, i) => i + 1))
  })
})
