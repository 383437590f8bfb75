/**
 * A session of 1,000 calls (2,220 events) in Chromium: the view applies its whole history (its
 * ready marker, `data-last-seq`, reaches the session's last event id) and draws the calls at the
 * top, but not those far below the viewport until they are scrolled to; a schedule posted while
 * it is open arrives live (the long history's stream carries it) and its call is drawn once
 * scrolled to. No console error or failed request. bench:console measures the same on 5,000 calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply } from '../../src/contracts/api.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startTestServer, type TestServer } from '../support/server.js'

const SHOWN_WITHIN_MS = 15_000
const SESSION = 'big-session'
let server: TestServer
let browser: Browser

/** One schedule of `count` Sleep calls of 0 ms, ended. */
async function sleeps(prefix: string, count: number): Promise<void> {
  const calls = Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, name: 'Sleep', input: { ms: 0 } }))
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: SESSION, createSession: {}, calls })
  expect(accepted.status).toBe(202)
  expect((await server.json('GET', `/schedules/${accepted.body.scheduleId}?wait=30`)).status).toBe(200)
}

const lastEventId = async (): Promise<number> => (await server.json<{ lastEventId: number }>('GET', `/sessions/${SESSION}`)).body.lastEventId
const row = (callId: string) => browser.page.locator(`[data-testid="call-row"][data-call-id="${callId}"]`)
const caughtUp = async (seq: number): Promise<void> => {
  await browser.page.locator(`[data-testid="session-view"][data-last-seq="${seq}"]`).waitFor({ state: 'attached', timeout: SHOWN_WITHIN_MS })
}

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer(), launchChromium()])
  for (let s = 0; s < 10; s++) await sleeps(`s${s}`, 100)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('a big session in the web console', () => {
  it('applies the whole history, draws the calls near the viewport only, and takes live events', async () => {
    const page = browser.page
    await page.setViewportSize({ width: 1280, height: 800 })
    const stored = await lastEventId()
    expect(stored).toBeGreaterThan(2_000)
    await page.goto(`${server.url}/#/sessions/${SESSION}`)
    await caughtUp(stored)
    await row('s0-0').waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await row('s0-0').getAttribute('data-status')).toBe('succeeded')
    expect(await row('s9-99').count()).toBe(0)
    expect(await page.locator('[data-testid="schedule"]').count()).toBe(10)

    await sleeps('live', 1)
    await caughtUp(await lastEventId())
    const last = page.locator('[data-testid="schedule"]').last()
    await last.scrollIntoViewIfNeeded()
    await page.locator('[data-testid="call-row"][data-call-id="live-0"][data-status="succeeded"]').waitFor({ timeout: SHOWN_WITHIN_MS })
    await row('s9-99').waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await page.locator('[data-testid="connection-state"]').getAttribute('data-state')).toBe('live')
    expect(browser.problems).toEqual([])
  }, 60_000)
})
