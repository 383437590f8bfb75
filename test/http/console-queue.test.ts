/**
 * The header's queue of pending approvals, in Chromium: the queue control's accessible name
 * says how many wait; it opens the oldest approval of any session, here another session than
 * the one on screen, focused; `j`/`k` walk the queue, `1` and `2` allow and the queue moves on.
 * The sessions list says which session waits and since when, and opens the queue on it, where
 * `d` and a message deny. No console error or failed request.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionRequestRecord, ScheduleReply } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { askingWrite as askingWriteIn, denyEveryPending, type AskingWrite } from '../support/pending-writes.js'

const SHOWN_WITHIN_MS = 15_000
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/console')
const workspace = tempDirSync('console-queue')
let server: TestServer
let browser: Browser

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ tools: builtinTools(), workspace }), launchChromium()])
  for (const id of ['on-screen', 'elsewhere']) expect((await server.json('POST', '/sessions', { id, permissionMode: 'default' })).status).toBe(201)
  await browser.page.goto(`${server.url}/#/sessions/on-screen`)
  await browser.page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: SHOWN_WITHIN_MS })
}, 60_000)

afterEach(() => denyEveryPending(server))

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const askingWrite = (sessionId: string, callId: string, file: string): Promise<AskingWrite> => askingWriteIn(server, sessionId, callId, file)

/** Leaving the session view closes its event stream: that aborted request is the step's doing. */
async function leaveSessionView(step: () => Promise<unknown>): Promise<void> {
  const events = (url: string): boolean => url.startsWith(`${server.url}/sessions/on-screen/events`)
  await browser.provoking({ url: events }, async () => {
    const closed = browser.page.waitForEvent('requestfailed', { predicate: (request) => events(request.url()), timeout: SHOWN_WITHIN_MS })
    await step()
    await closed
  })
}

const queueControl = () => browser.page.getByTestId('approval-queue')
const queueCard = () => browser.page.getByTestId('queue-dialog').getByTestId('approval-dialog')
const focusedTestId = () => browser.page.evaluate('document.activeElement && document.activeElement.dataset.testid')

/** Opens the queue from the header and waits for the card of `requestId`, focused. */
async function openQueueOn(requestId: string): Promise<void> {
  await queueControl().click()
  await expect.poll(() => queueCard().getAttribute('data-request-id'), { timeout: SHOWN_WITHIN_MS }).toBe(requestId)
  await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('approval-dialog')
}

describe('the queue of pending approvals', () => {
  it('names the count, opens the oldest approval of another session, walks with j/k and allows with 1 and 2', async () => {
    const elsewhere = await askingWrite('elsewhere', 'w-else', 'from-queue.txt')
    const here = await askingWrite('on-screen', 'w-here', 'on-screen.txt')
    await expect.poll(() => browser.page.locator('header.top').ariaSnapshot(), { timeout: SHOWN_WITHIN_MS }).toContain('button "2 pending approvals"')

    await openQueueOn(elsewhere.id)
    expect(await browser.page.getByTestId('queue-session').textContent()).toBe('elsewhere')
    const tree = await browser.page.getByTestId('queue-dialog').ariaSnapshot()
    for (const name of ['Close', 'Previous approval', 'Next approval', 'Allow once', 'Deny']) expect(tree).toContain(`button "${name}"`)
    mkdirSync(SCREENSHOTS, { recursive: true })
    await browser.page.screenshot({ path: path.join(SCREENSHOTS, 'queue-1280.png') })
    // Every button and field has a name: the tree shows none bare.
    expect(tree).not.toMatch(/- (button|textbox|link)( \[[^\]]*\])?:?$/m)
    await browser.page.keyboard.press('j')
    await expect.poll(() => queueCard().getAttribute('data-request-id')).toBe(here.id)
    await browser.page.keyboard.press('k')
    await expect.poll(() => queueCard().getAttribute('data-request-id')).toBe(elsewhere.id)
    await browser.page.keyboard.press('1')
    const ran = await server.json<ScheduleReply>('GET', `/schedules/${elsewhere.scheduleId}?wait=10`)
    expect(ran.body.calls[0]?.status).toBe('succeeded')
    expect(readFileSync(path.join(workspace, 'from-queue.txt'), 'utf8')).toBe('w-else\n')

    // The queue moves on to what is left, focused again: `2` allows it for its session.
    await expect.poll(() => queueCard().getAttribute('data-request-id'), { timeout: SHOWN_WITHIN_MS }).toBe(here.id)
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('approval-dialog')
    await browser.page.keyboard.press('2')
    await browser.page.getByTestId('queue-empty').waitFor({ timeout: SHOWN_WITHIN_MS })
    expect((await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions')).body.requests).toEqual([])
    await browser.page.keyboard.press('Escape')
    await browser.page.getByTestId('queue-dialog').waitFor({ state: 'detached', timeout: SHOWN_WITHIN_MS })
    await queueControl().waitFor({ state: 'hidden', timeout: SHOWN_WITHIN_MS })
    expect(browser.problems).toEqual([])
  }, 60_000)

  it('shows on the sessions list which session waits since when, and answers it from there: d, a message, Enter', async () => {
    await leaveSessionView(() => browser.page.getByTestId('nav-sessions').click())
    const asked = await askingWrite('elsewhere', 'w-deny', 'denied.txt')
    const waiting = browser.page.locator('[data-testid="session-row"][data-session-id="elsewhere"] [data-testid="session-waiting"]')
    await expect.poll(() => waiting.getAttribute('data-since', { timeout: 1_000 }).catch(() => null), { timeout: SHOWN_WITHIN_MS }).toBe(asked.createdAt)
    expect(await waiting.textContent()).toMatch(/^1 approval waiting for \d+ (s|min) \(since /)
    expect(await browser.page.locator('[data-testid="session-row"][data-session-id="on-screen"] [data-testid="session-waiting"]').count()).toBe(0)

    await waiting.getByRole('button', { name: 'Answer the oldest approval of session elsewhere', exact: true }).click()
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('approval-dialog')
    expect(await browser.page.getByTestId('queue-dialog').getByTestId('approval-dialog').getAttribute('data-request-id')).toBe(asked.id)
    await browser.page.keyboard.press('d')
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('deny-message')
    await browser.page.keyboard.type('not now')
    await browser.page.keyboard.press('Enter')
    const done = await server.json<ScheduleReply>('GET', `/schedules/${asked.scheduleId}?wait=10`)
    expect(done.body.calls[0]).toMatchObject({ status: 'denied', modelContent: 'not now' })
    await browser.page.getByTestId('queue-empty').waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(browser.problems).toEqual([])
  }, 60_000)
})
