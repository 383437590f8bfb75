import { rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import { pino } from 'pino'
import type { OpenedStore, Store, StoredEvent } from '../../src/contracts/store.js'
import { COALESCE_MS, SessionStream } from '../../src/http/session-stream.js'
import { EventBus } from '../../src/sessions/event-bus.js'
import { EventFeed } from '../../src/sessions/event-feed.js'
import { EventJournal } from '../../src/sessions/event-journal.js'
import { WakeUps } from '../../src/sessions/wake-ups.js'
import { openStore } from '../../src/storage/open-store.js'
import { sessionRecord } from '../support/store-records.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { freshDatabaseUrl } from '../support/test-database.js'

// Each test starts from an empty database (of the test project's backend): what the stream replays is what the test stores.
let dir: string
let opened: OpenedStore
let store: Store
let server: http.Server | undefined
beforeEach(async () => {
  dir = tempDirSync('stream')
  opened = await openStore({ dataDir: dir, databaseUrl: await freshDatabaseUrl(), logger: pino({ level: 'silent' }) })
  store = opened.store
})
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
  server = undefined
  await opened.close()
  rmSync(dir, { recursive: true, force: true })
})

const event = (seq: number, type: string): StoredEvent => ({ sessionId: 's', seq, type, data: JSON.stringify({ type, seq }) })

/** A real HTTP server streaming session `s`; resolves with the bus and the chunks the client receives, with their arrival times. */
async function streamed(): Promise<{ bus: EventBus; chunks: { at: number; text: string }[] }> {
  const bus = new EventBus()
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.flushHeaders()
    void new SessionStream(res, 0).run('s', new EventFeed({ store, bus }))
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const chunks: { at: number; text: string }[] = []
  await new Promise<void>((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      res.setEncoding('utf8')
      res.on('data', (text: string) => chunks.push({ at: performance.now(), text }))
      resolve()
    })
  })
  await new Promise((resolve) => setTimeout(resolve, 20))
  return { bus, chunks }
}

const until = async (done: () => boolean): Promise<void> => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 1))
}

describe('SessionStream live frames', () => {
  it('R37 a result goes out at once, in the same write as the progress frames that waited before it', async () => {
    const { bus, chunks } = await streamed()
    bus.publish(event(1, 'BatchStarted'))
    bus.publish(event(2, 'ToolCallStarted'))
    bus.publish(event(3, 'ToolCallResult'))
    await until(() => chunks.length > 0)
    expect(chunks[0]?.text.match(/^id: \d+$/gm)).toEqual(['id: 1', 'id: 2', 'id: 3'])
  })

  it('R37 a progress frame alone still goes out, after waiting a few milliseconds for company', async () => {
    const { bus, chunks } = await streamed()
    const published = performance.now()
    bus.publish(event(1, 'ToolCallStarted'))
    await until(() => chunks.length > 0)
    expect(chunks[0]?.text).toContain('event: ToolCallStarted')
    expect((chunks[0]?.at ?? 0) - published).toBeGreaterThanOrEqual(COALESCE_MS - 1)
  })
})

describe('SessionStream replaying to a client that reads', () => {
  it('counts against its limit only what waits for the client, not the live events the replay already sent it', async () => {
    const bus = new EventBus()
    const journal = new EventJournal(store, bus)
    // Far larger than the socket buffers: the replay waits for the client to read each one.
    const big = (n: number): ExecutorEvent => ({ type: 'ModelNetworkStatus', sessionId: 's', status: 'ok', detail: `${n}`.repeat(16_000_000) }) as never
    const small = (n: number): ExecutorEvent => ({ type: 'ModelNetworkStatus', sessionId: 's', status: 'ok', detail: `live ${n}` }) as never
    await journal.append(big(1))
    await journal.append(big(2))
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      void new SessionStream(res, 0, { replayPage: 1, maxQueuedFrames: 4 }).run('s', new EventFeed({ store, bus }))
    })
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const response = await new Promise<http.IncomingMessage>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.setEncoding('utf8')
        res.pause()
        resolve(res)
      })
    })
    // The frames' ids as they arrive; a chunk may end inside one, so the end of the last is kept.
    const ids: number[] = []
    let tail = ''
    let onId: (id: number) => void = () => {}
    response.on('data', (chunk: string) => {
      const window = tail + chunk
      for (const match of window.matchAll(/^id: (\d+)$/gm)) {
        const id = Number(match[1])
        if (id > (ids.at(-1) ?? 0)) {
          ids.push(id)
          onId(id)
        }
      }
      tail = window.slice(-16)
    })
    // The replay has written event 1 and waits for the client; these arrive meanwhile (3 to 6).
    await until(() => bus.subscriberCount('s') === 1)
    for (const event of [small(3), small(4), small(5), big(6)]) await journal.append(event)
    const sentSix = new Promise<void>((resolve) => {
      onId = (id) => {
        if (id !== 6) return
        response.pause()
        resolve()
      }
    })
    response.resume()
    // The replay has sent events 3 to 6 and waits for the client to read the rest of 6.
    await sentSix
    await journal.append(small(7))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(bus.subscriberCount('s')).toBe(1)
    response.resume()
    await until(() => ids.includes(7))
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7])
    response.destroy()
  }, 20_000)
})

describe('SessionStream of a session another node runs', () => {
  it('reads the store once per wake-up that tells of events it has not sent, and not for a commit an earlier read found', async () => {
    const wakeUps = new WakeUps(() => false)
    const feed = new EventFeed({ store, bus: new EventBus(), wakeUps })
    let reads = 0
    const counted: Pick<EventFeed, 'subscribe' | 'eventsAfter'> = {
      subscribe: (...args) => feed.subscribe(...args),
      eventsAfter: (...args) => {
        reads++
        return feed.eventsAfter(...args)
      },
    }
    const chunks: string[] = []
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.flushHeaders()
      void new SessionStream(res, 0).run('s', counted)
    })
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    http.get({ host: '127.0.0.1', port, path: '/' }, (res) => res.setEncoding('utf8').on('data', (text: string) => chunks.push(text)))
    await until(() => reads === 1)
    const sent = (seq: number) => (): boolean => chunks.join('').includes(`id: ${seq}\n`)
    const commit = (from: number, to: number): Promise<void> =>
      store.commit((u) => {
        for (let seq = from; seq <= to; seq++) u.events.insert(event(seq, 'Note'), '2026-01-01T00:00:00.000Z')
      })
    await store.commit((u) => u.sessions.insert(sessionRecord('s')))
    // Two commits, the second before the first one's wake-up is read: one read sends both.
    await commit(1, 2)
    await commit(3, 3)
    wakeUps.committedElsewhere('s', 2)
    await until(sent(3))
    wakeUps.committedElsewhere('s', 3)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(reads).toBe(2)
    await commit(4, 4)
    wakeUps.committedElsewhere('s', 4)
    await until(sent(4))
    // A wake-up that tells no seq (a server before 014, or after a lost connection) always reads.
    wakeUps.committedElsewhere('s')
    await until(() => reads === 4)
    expect(chunks.join('').match(/^id: /gm)).toHaveLength(4)
  })
})
