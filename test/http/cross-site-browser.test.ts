/**
 * The attack run's CSRF, replayed in Debian's Chromium against a server without a token
 * (`src/main.ts`, a child process) while a Bash `sleep 60` runs: a page served by a second
 * local HTTP server makes the browser POST to the session's abort without a preflight (a
 * no-cors fetch with and without a body, sendBeacon, a text/plain form, a urlencoded form).
 * Under another site's name (attacker.test, resolved to 127.0.0.1 by the browser) every one
 * is 403; on a loopback origin of another port each one with a body is 415. The command keeps
 * running through both; then the console, served by the server itself, aborts it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ATTACKS, startAttackerServer, type AttackerServer } from '../support/attacker-page.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startMain, type MainChild } from '../support/main-process.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { until } from '../support/until.js'

const VICTIM = 'victim'
const ATTACKER_NAME = 'attacker.test'

interface ScheduleView {
  readonly status: string
  readonly calls: readonly { readonly id: string; readonly status: string }[]
}

let server: MainChild
let attacker: AttackerServer
let browser: Browser
let scheduleId: string

async function api<T>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
  const response = await fetch(`${server.url}${route}`, init)
  return { status: response.status, body: (await response.json()) as T }
}

const schedule = async (): Promise<ScheduleView> => (await api<ScheduleView>('GET', `/schedules/${scheduleId}`)).body

beforeAll(async () => {
  ;[server, attacker, browser] = await Promise.all([startMain(tempDirSync('cross-site'), 2_000), startAttackerServer(), launchChromium([`--host-resolver-rules=MAP ${ATTACKER_NAME} 127.0.0.1`])])
  expect((await api('POST', '/sessions', { id: VICTIM })).status).toBe(201)
  const accepted = await api<{ scheduleId: string }>('POST', '/schedules', { sessionId: VICTIM, createSession: {}, calls: [{ id: 'nap', name: 'Bash', input: { command: 'sleep 60' } }] })
  expect(accepted.status).toBe(202)
  scheduleId = accepted.body.scheduleId
  await until(async () => ((await schedule()).calls[0]?.status === 'running' ? true : undefined), 'sleep 60 to run', 15_000)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await attacker?.close()
  server?.child.kill('SIGKILL')
  await server?.exited
})

/** Loads the page from `origin` and resolves with the status of every abort request it made the browser send. */
async function attackFrom(origin: string, query: string, expected: number): Promise<number[]> {
  const abortUrl = `${server.url}/sessions/${VICTIM}/abort`
  const statuses: number[] = []
  const page = browser.page
  const record = (response: { url(): string; status(): number }): void => {
    if (response.url() === abortUrl) statuses.push(response.status())
  }
  page.on('response', record)
  try {
    await browser.provoking({ url: (url) => url === abortUrl }, async () => {
      await page.goto(`${origin}/?api=${encodeURIComponent(server.url)}&session=${VICTIM}${query}`)
      await page.waitForFunction('window.attack', undefined, { timeout: 15_000 })
      expect(await page.evaluate('window.attack')).not.toContain('refused')
      await until(() => (statuses.length >= expected ? true : undefined), `${expected} abort requests`, 15_000)
    })
  } finally {
    page.off('response', record)
  }
  return statuses
}

async function expectStillRunning(): Promise<void> {
  // Long enough for an abort that got through to have ended the call.
  await new Promise((resolve) => setTimeout(resolve, 300))
  expect(await schedule()).toMatchObject({ status: 'running', calls: [{ id: 'nap', status: 'running' }] })
}

describe('a page on another site, in Chromium, against a server without a token', () => {
  it('cannot abort a running command: every request it makes the browser send is 403', async () => {
    const statuses = await attackFrom(`http://${ATTACKER_NAME}:${attacker.port}`, '', ATTACKS.length)
    await expectStillRunning()
    expect(statuses).toEqual(ATTACKS.map(() => 403))
  }, 60_000)

  it('from a loopback origin on another port, cannot send a body: each one is 415', async () => {
    const withBody = ATTACKS.filter((attack) => attack.body)
    const statuses = await attackFrom(`http://127.0.0.1:${attacker.port}`, '&bodies=only', withBody.length)
    await expectStillRunning()
    expect(statuses).toEqual(withBody.map(() => 415))
  }, 60_000)

  it("the console, served by the server itself, aborts it: the server's own origin is answered", async () => {
    const page = browser.page
    await page.goto(`${server.url}/#/sessions/${VICTIM}`)
    await page.getByTestId('abort-turn').click()
    await until(async () => ((await schedule()).status === 'cancelled' ? true : undefined), 'the cancelled schedule', 15_000)
    expect((await schedule()).calls).toEqual([expect.objectContaining({ id: 'nap', status: 'cancelled' })])
    expect(browser.problems).toEqual([])
  }, 60_000)
})
