/**
 * A real browser on another origin: headless Chromium loads a page from a local server on
 * one port and calls a toolexec server (`src/main.ts`, a child process with a token and that
 * origin allowed) on another. With the token the page creates a session, lists sessions,
 * streams with EventSource and ?access_token=, allows the Write that asks, gets the result
 * and deletes the session (a DELETE, so through a preflight); with a wrong token it reads the
 * 401's status and body. The server is killed and started again on the same data dir and
 * port while the page streams: the EventSource resumes by Last-Event-ID with nothing lost or
 * doubled. The reference at /docs opens without a token and its Authorize button sends the
 * bearer. Any console error or failed request the test does not provoke fails it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExecutorEventSchema } from '../../src/contracts/events.js'
import { startPageServer, type PageReply, type PageServer, type SeenEvent } from '../support/browser-page.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startMain, type MainChild } from '../support/main-process.js'
import { openSse } from '../support/sse-client.js'
import { tempDirSync } from '../support/temp-dirs.js'

const TOKEN = 'browser-token-Zq4mW8xK2p'
const SESSION = 'browser-session'
const EVENT_TYPES: readonly string[] = ExecutorEventSchema.anyOf.map((schema) => schema.properties.type.const)

let pageServer: PageServer
let browser: Browser
let server: MainChild
let dataDir: string

async function startServer(port: string): Promise<MainChild> {
  return startMain(dataDir, 2_000, { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_CORS_ORIGINS: pageServer.origin, PORT: port })
}

beforeAll(async () => {
  dataDir = tempDirSync('browser')
  pageServer = await startPageServer()
  ;[server, browser] = await Promise.all([startServer('0'), launchChromium()])
  expect(new URL(server.url).origin).not.toBe(pageServer.origin)
  pageServer.serve(server.url, TOKEN)
  await browser.page.goto(`${pageServer.origin}/`)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.child.kill('SIGKILL')
  await server?.exited
  await pageServer?.close()
})

const call = (method: string, route: string, body?: unknown, token?: string): Promise<PageReply> =>
  browser.page.evaluate(([m, r, b, t]) => globalThis.toolexec.call(m, r, b ?? undefined, t ?? undefined), [method, route, body ?? null, token ?? null] as const)

const seen = (): Promise<SeenEvent[]> => browser.page.evaluate(() => globalThis.toolexec.seen)

/** Resolves with the first event the page received that matches `type` and the fields of `where`. */
async function pageReceived(type: string, where: Record<string, unknown> = {}, timeoutMs = 15_000): Promise<SeenEvent> {
  const handle = await browser.page.waitForFunction(
    ([t, w]) => globalThis.toolexec.seen.find((event) => event.type === t && Object.entries(w).every(([key, value]) => event.data[key] === value)),
    [type, where] as const,
    { timeout: timeoutMs },
  )
  return (await handle.jsonValue()) as SeenEvent
}

/** Every event of the session as the server replays it from its store, id by id. */
async function serverHistory(): Promise<SeenEvent[]> {
  const session = await fetch(`${server.url}/sessions/${SESSION}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  const { lastEventId } = (await session.json()) as { lastEventId: number }
  const stream = await openSse(server.url, SESSION, { accessToken: TOKEN })
  await stream.waitForId(lastEventId)
  await stream.close()
  return stream.frames.map((frame) => ({ id: frame.id ?? '', type: frame.event, data: JSON.parse(frame.data) as Record<string, unknown> }))
}

const eventsUrl = (url: string): boolean => url.startsWith(`${server.url}/sessions/${SESSION}/events`)

describe('a page on another origin, in Chromium', () => {
  it('creates and lists sessions, streams, allows a Write, survives a restart, deletes, and reads a 401', async () => {
    const created = await call('POST', '/sessions', { id: SESSION })
    expect(created).toMatchObject({ status: 201, body: { id: SESSION, permissionMode: 'default' } })
    const listed = await call('GET', '/sessions')
    expect(listed.status).toBe(200)
    expect((listed.body as { sessions: { id: string }[] }).sessions.map((session) => session.id)).toContain(SESSION)

    await browser.page.evaluate(([id, types]) => globalThis.toolexec.watch(id, types), [SESSION, EVENT_TYPES] as const)
    const first = await call('POST', '/schedules', {
      sessionId: SESSION,
      createSession: {},
      calls: [{ id: 'w1', name: 'Write', input: { file_path: 'hello.txt', content: 'hello from a page\n' } }],
    })
    expect(first.status).toBe(202)
    const firstSchedule = (first.body as { scheduleId: string }).scheduleId
    const asked = await pageReceived('PermissionRequested', { callId: 'w1' })
    const allowed = await call('POST', `/permissions/${String(asked.data.permissionId)}`, { decision: 'allow' })
    expect(allowed.status).toBe(200)
    const result = await pageReceived('ToolCallResult', { callId: 'w1' })
    expect(result.data.result).toMatchObject({ status: 'succeeded' })
    await pageReceived('ScheduleCompleted', { scheduleId: firstSchedule })
    const done = await call('GET', `/schedules/${firstSchedule}?wait=10`)
    expect(done).toMatchObject({ status: 200, body: { status: 'completed', calls: [{ id: 'w1', status: 'succeeded' }] } })

    // The restart: the stream drops, reconnections are refused until the server listens again.
    const beforeKill = await seen()
    const lastBeforeKill = beforeKill.at(-1)?.id
    // The Last-Event-ID of each reconnection the server answered (a refused one reports no headers but its first ones).
    const reconnects: (string | undefined)[] = []
    browser.page.on('response', (response) => {
      if (eventsUrl(response.url()))
        void response
          .request()
          .allHeaders()
          .then((headers) => reconnects.push(headers['last-event-id']))
    })
    const second = await browser.provoking({ url: eventsUrl }, async () => {
      const port = new URL(server.url).port
      server.child.kill('SIGKILL')
      await server.exited
      server = await startServer(port)
      const posted = await call('POST', '/schedules', { sessionId: SESSION, createSession: {}, calls: [{ id: 'r1', name: 'Read', input: { file_path: 'hello.txt' } }] })
      expect(posted.status).toBe(202)
      const scheduleId = (posted.body as { scheduleId: string }).scheduleId
      await pageReceived('ScheduleCompleted', { scheduleId }, 30_000)
      return scheduleId
    })
    // The stream dropped (and, if the server took longer than the retry delay to start, reconnections were refused).
    expect(browser.provoked.filter((problem) => problem.startsWith('request failed: GET')).length).toBeGreaterThan(0)
    expect(await browser.page.evaluate(() => globalThis.toolexec.opens)).toBe(2)
    expect(reconnects).toEqual([lastBeforeKill])
    const read = await pageReceived('ToolCallResult', { callId: 'r1' })
    expect(JSON.stringify(read.data.result)).toContain('hello from a page')

    // Nothing lost, nothing doubled: the page has exactly the server's history, in order.
    const history = await serverHistory()
    const received = await seen()
    expect(received.map((event) => event.id)).toEqual(history.map((_, index) => String(index + 1)))
    expect(received).toEqual(history)
    expect(new Set(received.map((event) => event.type))).toEqual(
      new Set(['ScheduleAccepted', 'BatchStarted', 'ToolCallStarted', 'PermissionRequested', 'PermissionResolved', 'ToolCallResult', 'BatchCompleted', 'ScheduleCompleted']),
    )
    expect(received.some((event) => event.data.scheduleId === second)).toBe(true)

    // Closing the stream aborts its request; then the session goes, through a preflight.
    await browser.provoking({ url: eventsUrl }, async () => {
      const aborted = browser.page.waitForEvent('requestfailed', (request) => eventsUrl(request.url()))
      await browser.page.evaluate(() => globalThis.toolexec.unwatch())
      await aborted
    })
    expect(await call('DELETE', `/sessions/${SESSION}`)).toEqual({ status: 204, body: null })
    browser.provoked.length = 0
    const gone = await browser.provoking({ url: (url) => url === `${server.url}/sessions/${SESSION}` }, () => call('GET', `/sessions/${SESSION}`))
    expect(gone).toMatchObject({ status: 404, body: { error: { code: 'API_ERR_SESSION_NOT_FOUND' } } })

    // A wrong token: the page reads the status and the error, not `Failed to fetch`.
    const refused = await browser.provoking({ url: (url) => url === `${server.url}/sessions` }, () => call('GET', '/sessions', undefined, `${TOKEN}-wrong`))
    expect(refused).toEqual({ status: 401, body: { error: { code: 'API_ERR_UNAUTHORIZED', message: 'Missing or invalid bearer token' } } })
    expect(browser.provoked).toContain(`reply 401 to GET (${server.url}/sessions)`)

    expect(browser.problems).toEqual([])
  }, 90_000)

  it('serves /docs without a token, and its Authorize button sends the bearer on Try it out', async () => {
    const page = browser.page
    await page.goto(`${server.url}/docs`)
    await page.locator('button.authorize').first().click()
    await page.locator('.auth-container input').first().fill(TOKEN)
    await page.locator('.auth-container button.authorize').first().click()
    await page.locator('button.btn-done').first().click()
    await page.locator('#operations-tools-listTools .opblock-summary').first().click()
    await page.locator('#operations-tools-listTools button.try-out__btn').first().click()
    // The form is filled with the parameter's example (`?format=anthropic`).
    const listed = page.waitForResponse((response) => response.url().startsWith(`${server.url}/tools?`) || response.url() === `${server.url}/tools`)
    await page.locator('#operations-tools-listTools button.execute').first().click()
    const response = await listed
    expect(response.status()).toBe(200)
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${TOKEN}`)
    expect(browser.problems).toEqual([])
  }, 60_000)
})
