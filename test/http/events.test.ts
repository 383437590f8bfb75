import http from 'node:http'
import type { Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import type { StoredEvent } from '../../src/contracts/store.js'
import { RECONNECT_DELAY_MS } from '../../src/http/session-stream.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { dataOf, openSse, parseSse, type SseClient, type SseFrame } from '../support/sse-client.js'

// Small limits so that a replay takes several pages and a slow client hits its bound quickly.
const LIMITS = { replayPage: 100, maxQueuedFrames: 50 }

let s: TestServer
let streams: SseClient[] = []
let counter = 0
const fresh = (prefix: string): string => `${prefix}-${++counter}`

beforeAll(async () => {
  s = await startTestServer({ heartbeatMs: 200, streamLimits: LIMITS })
})

afterAll(async () => {
  await s.close()
})

afterEach(async () => {
  await Promise.all(streams.map((stream) => stream.close()))
  streams = []
})

async function watch(sessionId: string, options?: Parameters<typeof openSse>[2]): Promise<SseClient> {
  const stream = await openSse(s.url, sessionId, options)
  streams.push(stream)
  return stream
}

async function accept(sessionId: string, calls: unknown[]): Promise<ScheduleAcceptedReply> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls })
  expect(reply.status).toBe(202)
  return reply.body
}

async function finished(scheduleId: string): Promise<ScheduleReply> {
  const reply = await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)
  expect(reply.body.status).toBe('completed')
  return reply.body
}

const reads = (prefix: string, count: number, file = 'f.txt'): unknown[] => Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, name: 'Read', input: { file_path: file } }))

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i)

const stored = (sessionId: string): Promise<StoredEvent[]> => s.runtime.store.events.after(sessionId, 0, 1_000_000)

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const completes = (scheduleId: string) => (frame: SseFrame) => frame.event === 'ScheduleCompleted' && dataOf(frame).scheduleId === scheduleId

describe('GET /sessions/:id/events', () => {
  it('numbers events 1, 2, 3, ... with no gaps, each data one JSON line {type, sessionId, seq, at, ...}', async () => {
    const sessionId = fresh('ids')
    await s.json('POST', '/sessions', { id: sessionId })
    const stream = await watch(sessionId)
    const one = await accept(sessionId, [...reads('a', 3), { id: 'gone', name: 'Missing', input: {} }])
    const two = await accept(sessionId, reads('b', 2))
    await stream.waitFor(completes(two.scheduleId))
    await stream.waitFor(completes(one.scheduleId))
    expect(stream.ids()).toEqual(range(1, stream.frames.length))
    for (const frame of stream.frames) {
      expect(frame.data).not.toContain('\n')
      const data = dataOf(frame)
      expect(Object.keys(data).slice(0, 4)).toEqual(['type', 'sessionId', 'seq', 'at'])
      expect(data).toMatchObject({ type: frame.event, sessionId, seq: Number(frame.id) })
      expect(new Date(String(data.at)).toISOString()).toBe(data.at)
    }
    expect(stream.frames.map((frame) => frame.data)).toEqual((await stored(sessionId)).map((event) => event.data))
    const types = new Set(stream.frames.map((frame) => frame.event))
    expect([...types]).toEqual(expect.arrayContaining(['ScheduleAccepted', 'BatchStarted', 'ToolCallStarted', 'ToolCallResult', 'BatchCompleted', 'ScheduleCompleted']))
    // Calls of one group start together: their ToolCallStarted events come in any order.
    const started = dataOf(stream.frames.find((frame) => frame.event === 'ToolCallStarted' && dataOf(frame).callId === 'a0') as SseFrame)
    expect(started).toMatchObject({ callId: 'a0', toolName: 'Read', input: { file_path: 'f.txt' }, flags: { readOnly: true, sideEffectScope: 'none' } })
  })

  it('names every call of a schedule in its ScheduleAccepted, in schedule order: a viewer needs no read of the schedule to name them', async () => {
    const sessionId = fresh('names')
    await s.json('POST', '/sessions', { id: sessionId })
    const stream = await watch(sessionId)
    const accepted = await accept(sessionId, [...reads('r', 2), { id: 'gone', name: 'Missing', input: {} }])
    const frame = await stream.waitFor((received) => received.event === 'ScheduleAccepted')
    expect(dataOf(frame)).toMatchObject({
      scheduleId: accepted.scheduleId,
      calls: [
        { id: 'r0', name: 'Read' },
        { id: 'r1', name: 'Read' },
        { id: 'gone', name: 'Missing' },
      ],
    })
    await stream.waitFor(completes(accepted.scheduleId))
  })

  it('sends Cache-Control no-cache and X-Accel-Buffering no, and a heartbeat comment', async () => {
    const sessionId = fresh('headers')
    await s.json('POST', '/sessions', { id: sessionId })
    const stream = await watch(sessionId)
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(stream.headers.get('cache-control')).toBe('no-cache')
    expect(stream.headers.get('x-accel-buffering')).toBe('no')
    expect(await stream.waitForComment(3_000)).toBe('heartbeat')
    expect(stream.frames).toEqual([])
  })

  it('asks a browser to reconnect after RECONNECT_DELAY_MS with a retry: field, before any event, on a fresh and a resumed stream', async () => {
    const sessionId = fresh('retry')
    await s.json('POST', '/sessions', { id: sessionId })
    const raw = await fetch(`${s.url}/sessions/${sessionId}/events`, { headers: { accept: 'text/event-stream' } })
    const reader = (raw.body as ReadableStream<Uint8Array>).getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(first.startsWith(`retry: ${RECONNECT_DELAY_MS}\n\n`)).toBe(true)
    await finished((await accept(sessionId, [{ id: 'r1', name: 'Read', input: { file_path: 'nothing.txt' } }])).scheduleId)
    const resumed = await watch(sessionId, { lastEventId: 1 })
    await resumed.waitForId(2)
    expect(resumed.retry).toBe(RECONNECT_DELAY_MS)
    expect(resumed.ids()[0]).toBe(2)
  })

  it('replies 404 in the JSON error format, not as a stream, for an unknown session', async () => {
    const stream = await watch('no-such-session')
    expect(stream.status).toBe(404)
    expect(stream.headers.get('content-type')).toMatch(/^application\/json/)
    expect(stream.body).toEqual({ error: { code: 'API_ERR_SESSION_NOT_FOUND', message: 'Session no-such-session not found' } })
  })

  it('answers a client whose Accept refuses text/event-stream with a 406 in the error format', async () => {
    const sessionId = fresh('not-acceptable')
    await s.json('POST', '/sessions', { id: sessionId })
    const reply = await fetch(`${s.url}/sessions/${sessionId}/events`, { headers: { accept: 'application/json' } })
    expect(reply.status).toBe(406)
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await reply.json()).toEqual({
      error: { code: 'API_ERR_NOT_ACCEPTABLE', message: 'This route answers only text/event-stream, which the Accept header (application/json) refuses' },
    })
  })

  it.each([
    ['?after=abc', { after: 'abc' }],
    ['?after=-1', { after: '-1' }],
    ['Last-Event-ID: x', { lastEventId: 'x' }],
  ])('replies 400 in the error format for %s', async (_case, options) => {
    const sessionId = fresh('bad-resume')
    await s.json('POST', '/sessions', { id: sessionId })
    const stream = await watch(sessionId, options)
    expect(stream.status).toBe(400)
    expect((stream.body as ErrorReply).error.code).toBe('API_ERR_VALIDATION')
  })

  it.each([
    ['Last-Event-ID', 'lastEventId'],
    ['?after=', 'after'],
  ] as const)('replies 400 for a %s past the last stored event, which would silently skip the events numbered up to it', async (_name, how) => {
    // A session deleted and created again starts over at 1: a client still holding an id of the old one.
    const sessionId = fresh('ahead')
    await finished((await accept(sessionId, reads('ahead', 1))).scheduleId)
    const last = (await stored(sessionId)).length
    const stream = await watch(sessionId, { [how]: last + 5 })
    expect(stream.status).toBe(400)
    expect(stream.body).toEqual({
      error: { code: 'API_ERR_VALIDATION', message: `Event ${last + 5} is past the last event of session ${sessionId} (${last}); resume from an id this session sent, or from 0` },
    })
    const caughtUp = await watch(sessionId, { [how]: last })
    expect(caughtUp.status).toBe(200)
  })

  it('unsubscribes a closed client at once', async () => {
    const sessionId = fresh('closing')
    await s.json('POST', '/sessions', { id: sessionId })
    const stream = await watch(sessionId)
    const bus = s.runtime.bus
    await until(() => bus.subscriberCount(sessionId) === 1)
    const closedAt = Date.now()
    await stream.close()
    await until(() => bus.subscriberCount(sessionId) === 0, 1_000)
    expect(Date.now() - closedAt).toBeLessThan(1_000)
    await finished((await accept(sessionId, reads('after-close', 2))).scheduleId)
    expect(bus.subscriberCount(sessionId)).toBe(0)
  })
})

describe('resuming by id', () => {
  let sessionId: string
  let last: number

  beforeAll(async () => {
    sessionId = fresh('resume')
    for (let i = 0; i < 6; i++) await finished((await accept(sessionId, reads(`r${i}-`, 20))).scheduleId)
    last = await s.runtime.journal.lastSeq(sessionId)
    expect(last).toBeGreaterThan(2 * LIMITS.replayPage)
  })

  it.each([
    ['Last-Event-ID', 'header', 0.5],
    ['?after=', 'query', 0.5],
    ['Last-Event-ID', 'header', 0],
    ['?after=', 'query', 1],
    ['Last-Event-ID', 'header', 0.97],
  ] as const)('returns exactly the missing suffix after %s then live events, nothing lost or doubled, with a schedule posted while resuming (%s at %s)', async (_name, how, fraction) => {
    const from = Math.floor(last * fraction)
    const options = how === 'header' ? { lastEventId: from } : { after: from }
    const [stream, posted] = await Promise.all([watch(sessionId, options), accept(sessionId, reads(`live${counter++}-`, 25))])
    const more = await accept(sessionId, reads(`more${counter++}-`, 5))
    await stream.waitFor(completes(more.scheduleId), 8_000)
    await stream.waitFor(completes(posted.scheduleId))
    const end = await s.runtime.journal.lastSeq(sessionId)
    expect(stream.ids()).toEqual(range(from + 1, end))
    expect(stream.frames.map((frame) => frame.data)).toEqual((await stored(sessionId)).slice(from).map((event) => event.data))
    last = end
  })
})

describe('a replay of large events', () => {
  it('goes out in pages bounded by data as well as by count: every event once, in order, byte for byte', async () => {
    const sessionId = fresh('large')
    await s.json('POST', '/sessions', { id: sessionId })
    // Events of 3 MB each, as a large Write's would be: past a page's data bound, each one a page.
    const journal = s.runtime.journal
    for (let i = 0; i < 7; i++) await journal.append({ type: 'ModelNetworkStatus', sessionId, status: 'ok', detail: `${i}`.repeat(3_000_000) } as never)
    const stream = await watch(sessionId)
    const last = await journal.lastSeq(sessionId)
    await until(() => stream.frames.length >= last, 10_000)
    expect(stream.ids()).toEqual(range(1, last))
    expect(stream.frames.map((frame) => frame.data)).toEqual((await stored(sessionId)).map((event) => event.data))
  })
})

describe('a slow client', () => {
  it('is closed once too many events wait for it, and then resumes by id receiving everything exactly once', async () => {
    const sessionId = fresh('slow')
    await s.json('POST', '/sessions', { id: sessionId })
    const bus = s.runtime.bus
    const response = await openPaused(sessionId)
    await until(() => bus.subscriberCount(sessionId) === 1)

    // About 6 MB of events while the client reads nothing fills the socket buffers (about 4 MB
    // here); from then on every event waits in the server's queue, and 50 of them close it.
    const big = 'x'.repeat(30_000)
    const schedules: ScheduleAcceptedReply[] = []
    for (let i = 0; i < 7; i++) schedules.push(await accept(sessionId, reads(`big${i}-`, 10, big)))
    for (let i = 0; i < 3; i++) schedules.push(await accept(sessionId, reads(`small${i}-`, 20)))
    await until(() => bus.subscriberCount(sessionId) === 0, 8_000)
    for (const schedule of schedules) await finished(schedule.scheduleId)
    const end = await s.runtime.journal.lastSeq(sessionId)

    const firstPart = parseSse(await readAll(response)).frames
    const firstIds = firstPart.map((frame) => Number(frame.id))
    expect(firstIds).toEqual(range(1, firstIds.length))
    expect(firstIds.length).toBeLessThan(end)

    const resumed = await watch(sessionId, { lastEventId: firstIds.length })
    await resumed.waitForId(end, 8_000)
    const all = [...firstPart, ...resumed.frames]
    expect(all.map((frame) => Number(frame.id))).toEqual(range(1, end))
    expect(all.map((frame) => frame.data)).toEqual((await stored(sessionId)).map((event) => event.data))
  }, 30_000)

  it('is disconnected when it is closed: the frames that waited for it are dropped, not held until it reads again', async () => {
    const sessionId = fresh('stalled')
    await s.json('POST', '/sessions', { id: sessionId })
    const bus = s.runtime.bus
    const serverSockets: Socket[] = []
    const onConnection = (socket: Socket): number => serverSockets.push(socket)
    s.app.server.on('connection', onConnection)
    // A connection of its own, so that the server's side of it is the one accepted now.
    const response = await openPaused(sessionId, s.url, false).finally(() => s.app.server.off('connection', onConnection))
    const serverSide = serverSockets.find((socket) => socket.remotePort === response.socket.localPort)
    expect(serverSide).toBeDefined()
    await until(() => bus.subscriberCount(sessionId) === 1)

    const big = 'x'.repeat(30_000)
    for (let i = 0; i < 7; i++) await finished((await accept(sessionId, reads(`big${i}-`, 10, big))).scheduleId)
    for (let i = 0; i < 3; i++) await finished((await accept(sessionId, reads(`small${i}-`, 20))).scheduleId)
    await until(() => bus.subscriberCount(sessionId) === 0, 8_000)

    // The client still reads nothing: only a server that lets go of the socket frees what it buffered.
    await until(() => serverSide?.destroyed === true, 2_000)
    response.destroy()
  }, 30_000)
})

describe('a client that keeps up', () => {
  it('receives an event larger than the data limit for waiting events, and stays subscribed', async () => {
    const tight = await startTestServer({ streamLimits: { ...LIMITS, maxQueuedChars: 10_000 } })
    await tight.json('POST', '/sessions', { id: 'keeps-up' })
    const stream = await openSse(tight.url, 'keeps-up')
    streams.push(stream)
    try {
      const bus = tight.runtime.bus
      await until(() => bus.subscriberCount('keeps-up') === 1)
      // The started and result events each carry the 20,000-character path.
      const calls = [{ id: 'long', name: 'Read', input: { file_path: 'y'.repeat(20_000) } }]
      const accepted = await tight.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 'keeps-up', createSession: {}, calls })
      await tight.json('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
      const end = await tight.runtime.journal.lastSeq('keeps-up')
      await stream.waitForId(end, 5_000)
      expect(stream.frames.map((frame) => Number(frame.id))).toEqual(range(1, end))
      expect(bus.subscriberCount('keeps-up')).toBe(1)
    } finally {
      await stream.close()
      await tight.close()
    }
  })
})

describe('a client that reads nothing, with the default limits', () => {
  it('is closed once the events waiting for it hold too much data, though they are far fewer than the frame limit', async () => {
    const roomy = await startTestServer()
    try {
      const sessionId = fresh('heavy')
      await roomy.json('POST', '/sessions', { id: sessionId })
      const bus = roomy.runtime.bus
      const response = await openPaused(sessionId, roomy.url)
      await until(() => bus.subscriberCount(sessionId) === 1)
      // Each call carries 4 MB in its started and result events: 72 frames, about 97 MB.
      const path = 'x'.repeat(4_000_000)
      for (let i = 0; i < 12; i++) {
        const accepted = await roomy.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: `big${i}`, name: 'Read', input: { file_path: path } }] })
        await roomy.json('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
      }
      await until(() => bus.subscriberCount(sessionId) === 0, 8_000)
      response.destroy()
    } finally {
      await roomy.close()
    }
  }, 60_000)
})

/** A client that reads nothing: the response is paused as soon as its headers arrive. */
function openPaused(sessionId: string, baseUrl = s.url, agent?: false): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${baseUrl}/sessions/${sessionId}/events`, { headers: { accept: 'text/event-stream' }, agent }, (response) => {
      response.pause()
      resolve(response)
    })
    request.on('error', reject)
  })
}

/** What reached the client before the server ended or cut off its response. */
function readAll(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    response.on('data', (chunk: Buffer) => chunks.push(chunk))
    // A cut-off response errors with 'aborted'; what arrived before it is what counts.
    response.on('error', () => {})
    response.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    response.resume()
  })
}
