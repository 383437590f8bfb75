/**
 * The web console in Chromium without a token: a long Bash command's live progress shows in
 * its row while it runs and goes when it ends; an approval is reached and answered with the
 * keyboard alone (Tab to its button, Enter), and the call then runs. No console error or
 * failed request.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const SHOWN_WITHIN_MS = 15_000
const MOST_TABS = 60
// Read-only as the rules see it, so it runs unasked: six lines half a second apart.
const TICKS = [1, 2, 3, 4, 5, 6].map((i) => `echo tick-${i}; sleep 0.5`).join('; ')

let server: TestServer
let browser: Browser
let sessionId = ''
const workspace = tempDirSync('console-keyboard')

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ tools: builtinTools() }), launchChromium()])
  const created = await server.json<{ id: string }>('POST', '/sessions', { workspace })
  expect(created.status).toBe(201)
  sessionId = created.body.id
  await browser.page.goto(`${server.url}/#/sessions/${sessionId}`)
  await browser.page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: SHOWN_WITHIN_MS })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

async function post(calls: readonly { id: string; name: string; input: unknown }[]): Promise<string> {
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls })
  expect(accepted.status).toBe(202)
  return accepted.body.scheduleId
}

const row = (callId: string) => browser.page.locator(`[data-testid="call-row"][data-call-id="${callId}"]`)

/** The data-testid of the focused element, after Tab presses until it is `testId` (or MOST_TABS). */
async function tabTo(testId: string): Promise<number> {
  for (let presses = 1; presses <= MOST_TABS; presses += 1) {
    await browser.page.keyboard.press('Tab')
    const focused = await browser.page.evaluate('document.activeElement && document.activeElement.dataset.testid')
    if (focused === testId) return presses
  }
  throw new Error(`${testId} was not reached in ${MOST_TABS} Tab presses`)
}

describe('the web console, live progress and the keyboard', () => {
  it("shows a running command's progress, its output's tail included, and drops it when the command ends", async () => {
    await post([{ id: 'tick', name: 'Bash', input: { command: TICKS } }])
    const progress = row('tick').getByTestId('call-progress')
    await expect.poll(() => progress.textContent(), { timeout: SHOWN_WITHIN_MS }).toMatch(/running .*tick-\d/s)
    const first = await progress.textContent()
    // It is live: what it shows moves on while the command runs.
    await expect.poll(() => progress.textContent(), { timeout: SHOWN_WITHIN_MS }).not.toBe(first)
    await expect.poll(() => row('tick').getAttribute('data-status'), { timeout: SHOWN_WITHIN_MS }).toBe('succeeded')
    expect(await progress.count()).toBe(0)
    expect(browser.problems).toEqual([])
  }, 60_000)

  it('reaches an approval with Tab and allows it with Enter: the Write runs', async () => {
    await post([{ id: 'kw', name: 'Write', input: { file_path: 'typed.txt', content: 'by keyboard\n' } }])
    const dialog = browser.page.getByTestId('approval-dialog')
    await dialog.waitFor({ timeout: SHOWN_WITHIN_MS })
    await browser.page.evaluate('document.activeElement && document.activeElement.blur()')
    expect(await tabTo('approve-once')).toBeGreaterThan(0)
    await browser.page.keyboard.press('Enter')
    await expect.poll(() => row('kw').getAttribute('data-status'), { timeout: SHOWN_WITHIN_MS }).toBe('succeeded')
    expect(readFileSync(path.join(workspace, 'typed.txt'), 'utf8')).toBe('by keyboard\n')
    expect(await dialog.count()).toBe(0)
    expect(browser.problems).toEqual([])
  }, 60_000)
})
