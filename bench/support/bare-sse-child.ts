/**
 * Baseline of the replay bench: a plain node http server that writes a session's stored
 * frames (the same bytes, built by the same frameOf and joined into writes of the same
 * page size) to each client, waiting for drain like any well-behaved writer. The pages
 * are built before it listens, so only the write loop is measured.
 */
import http from 'node:http'
import { once } from 'node:events'
import { pino } from 'pino'
import { frameOf } from '../../src/http/session-stream.js'
import { openStore } from '../../src/storage/open-store.js'
import { benchStreamLimits, serveAsChild } from './child-process.js'

const [dataDir, sessionId] = process.argv.slice(2)
if (dataDir === undefined || sessionId === undefined) throw new Error('usage: bare-sse-child.ts <dataDir> <sessionId>')

async function storedPages(dataDir: string, sessionId: string): Promise<string[]> {
  const opened = await openStore({ dataDir, logger: pino({ level: 'silent' }) })
  const limits = benchStreamLimits()
  const pages: string[] = []
  for (let after = 0; ;) {
    const events = await opened.store.events.after(sessionId, after, limits.replayPage, limits.replayPageChars)
    if (events.length === 0) break
    pages.push(events.map(frameOf).join(''))
    after = events[events.length - 1]?.seq ?? after
  }
  await opened.close()
  return pages
}

const pages = await storedPages(dataDir, sessionId)

const server = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' })
  void (async () => {
    for (const page of pages) {
      if (!response.write(page)) await once(response, 'drain')
    }
  })()
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  serveAsChild(`http://127.0.0.1:${address.port}`, async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    return null
  })
})
