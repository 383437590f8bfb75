/**
 * The change first, and grants no wider than meant, in Chromium: a 400-line Write shows its
 * diff (the file named in the workspace), the raw input collapsed and Allow in view without
 * scrolling at 1280x800; its whole diff opens windowed (a 10,000-line one too, only the rows
 * in view in the DOM); an HTTP tool's input reads as a tree. A Bash command shows its
 * directory, sandbox and an honest risk; its prefix grant adds one rule per part, which the
 * Rules page lists and deletes. At 390x844 the header's queue opens the approval, with no
 * sideways scroll, 44 px targets, and Allow in view. Screenshots go to test-results/console/.
 * No console error or failed request.
 */
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Locator } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionRequestRecord, ProjectRule, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { denyEveryPending } from '../support/pending-writes.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { until } from '../support/until.js'

const SHOWN_WITHIN_MS = 15_000
const WIDE = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/console')
const workspace = tempDirSync('console-change')
let server: TestServer
let browser: Browser

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  ;[server, browser] = await Promise.all([startTestServer({ tools: builtinTools(), workspace }), launchChromium()])
  for (const id of ['writes', 'commands', 'phone']) expect((await server.json('POST', '/sessions', { id, permissionMode: 'default' })).status).toBe(201)
}, 60_000)

afterEach(() => denyEveryPending(server))

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const page = () => browser.page
const lines = (count: number): string => Array.from({ length: count }, (_, index) => `line ${index + 1} of the file`).join('\n') + '\n'

/** Opens `hash`; leaving a session view closes its event stream, which is then this step's doing. */
async function open(hash: string, live = true): Promise<void> {
  const leaving = /#\/sessions\/([^/?]+)/.exec(page().url())?.[1]
  const events = (url: string): boolean => leaving !== undefined && url.startsWith(`${server.url}/sessions/${leaving}/events`)
  await browser.provoking({ url: events }, async () => {
    const closed = leaving === undefined ? undefined : page().waitForEvent('requestfailed', { predicate: (request) => events(request.url()), timeout: SHOWN_WITHIN_MS })
    await page().goto(`${server.url}/${hash}`)
    await closed
  })
  if (live) await page().locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: SHOWN_WITHIN_MS })
}

/** A call in `sessionId` that asks, its request and its schedule's id. */
async function asking(sessionId: string, callId: string, name: string, input: unknown): Promise<PermissionRequestRecord & { scheduleId: string }> {
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, calls: [{ id: callId, name, input }] })
  expect(accepted.status).toBe(202)
  const pending = async (): Promise<PermissionRequestRecord | undefined> =>
    (await server.json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}`)).body.requests.find((request) => request.callId === callId)
  return { ...(await until(pending, `${callId} to ask`)), scheduleId: accepted.body.scheduleId }
}

const ended = async (scheduleId: string): Promise<ScheduleReply['calls'][number] | undefined> => (await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)).body.calls[0]
const cardOf = (requestId: string): Locator => page().locator(`[data-testid="approval-dialog"][data-request-id="${requestId}"]`)

/** What the tests read of a scrolling element (the test's types have no DOM). */
interface Scrollable {
  readonly scrollHeight: number
  readonly scrollWidth: number
  readonly clientWidth: number
  scrollTo(x: number, y: number): void
}

/** Whether the element lies wholly inside the viewport as it is now, unscrolled. */
async function inView(locator: Locator, viewport: { width: number; height: number }): Promise<boolean> {
  const box = await locator.boundingBox()
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width
}

describe('the change first', () => {
  it('shows a 400-line Write as its diff, the path in the workspace, the raw input collapsed, and Allow without scrolling at 1280x800', async () => {
    await page().setViewportSize(WIDE)
    await open('#/sessions/writes')
    const asked = await asking('writes', 'long', 'Write', { file_path: path.join(workspace, 'src', 'long.txt'), content: lines(400) })
    const card = cardOf(asked.id)
    await card.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await card.getByTestId('diff-path').textContent()).toBe('src/long.txt')
    expect(await card.getByTestId('approval-raw').getAttribute('open')).toBeNull()
    expect(await card.getByTestId('approval-input').isVisible()).toBe(false)
    expect(await page().evaluate('window.scrollY')).toBe(0)
    expect(await inView(card.getByTestId('approve-once'), WIDE)).toBe(true)
    expect(await inView(card.getByTestId('deny'), WIDE)).toBe(true)
    await page().screenshot({ path: path.join(SCREENSHOTS, 'write-diff-1280.png') })

    await card.getByTestId('whole-diff-toggle').click()
    const whole = card.getByTestId('approval-whole-diff')
    expect(await whole.getAttribute('data-rows')).toBe('401')
    expect(await whole.getByTestId('whole-diff-line').count()).toBeLessThan(100)
    await whole.evaluate((element: Scrollable) => element.scrollTo(0, element.scrollHeight))
    await expect.poll(() => whole.getByTestId('whole-diff-line').last().textContent(), { timeout: SHOWN_WITHIN_MS }).toContain('line 400 of the file')
    expect(await inView(card.getByTestId('approve-once'), WIDE)).toBe(true)
    await card.getByTestId('approve-once').click()
    expect(await ended(asked.scheduleId)).toMatchObject({ status: 'succeeded' })
    expect(browser.problems).toEqual([])
  }, 60_000)

  it('opens the whole diff of a 10,000-line Write with only the rows in view in the DOM', async () => {
    const asked = await asking('writes', 'huge', 'Write', { file_path: 'huge.txt', content: lines(10_000) })
    const card = cardOf(asked.id)
    await card.waitFor({ timeout: SHOWN_WITHIN_MS })
    const started = Date.now()
    await card.getByTestId('whole-diff-toggle').click()
    const whole = card.getByTestId('approval-whole-diff')
    expect(await whole.getAttribute('data-rows')).toBe('10001')
    for (const fraction of [0.25, 0.5, 1]) {
      await whole.evaluate((element: Scrollable, at: number) => element.scrollTo(0, element.scrollHeight * at), fraction)
      await expect.poll(() => whole.getByTestId('whole-diff-line').count(), { timeout: SHOWN_WITHIN_MS }).toBeLessThan(100)
    }
    await expect.poll(() => whole.getByTestId('whole-diff-line').last().textContent(), { timeout: SHOWN_WITHIN_MS }).toContain('line 10000 of the file')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(browser.problems).toEqual([])
  }, 60_000)
  it("shows an HTTP tool's input as a tree, strings as they read, the raw JSON collapsed", async () => {
    const tool = { name: 'CreateTicket', description: 'Opens a ticket', inputSchema: { type: 'object' }, url: 'http://127.0.0.1:9/tickets', sideEffectScope: 'network' }
    expect((await server.json('POST', '/tools', tool)).status).toBe(201)
    const asked = await asking('writes', 'ticket', 'CreateTicket', { title: 'Disk full', labels: ['ops', 'urgent'], body: 'first line\nsecond line' })
    const tree = cardOf(asked.id).getByTestId('approval-input-tree')
    await tree.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await tree.locator(':scope > dl > div > dt').allTextContents()).toEqual(['title', 'labels', 'body'])
    expect(await tree.getByText('first line').textContent()).toBe('first line\nsecond line')
    expect(await tree.locator('dl dl dd').allTextContents()).toEqual(['ops', 'urgent'])
    expect(await cardOf(asked.id).getByTestId('approval-input').isVisible()).toBe(false)
    expect(browser.problems).toEqual([])
  }, 60_000)
})

describe('grants no wider than meant', () => {
  it('shows a Bash command with its directory, sandbox and risk; the prefix grant adds a rule per part, listed and deleted on the Rules page', async () => {
    await page().setViewportSize(WIDE)
    await open('#/sessions/commands')
    const command = 'touch made-by-bash.txt && ls -la'
    const asked = await asking('commands', 'touch', 'Bash', { command })
    const card = cardOf(asked.id)
    await card.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await card.getByTestId('approval-command').textContent()).toBe(command)
    expect(await card.getByTestId('command-cwd').textContent()).toBe(workspace)
    expect(await card.getByTestId('command-sandbox').getAttribute('data-confined')).toBe(String(server.runtime.sandbox.confined))
    expect(await card.getByTestId('approval-risk').textContent()).toBe('medium risk')
    await card.getByTestId('approve-project').click()
    const choices = card.getByTestId('rule-choices')
    expect(await choices.getByRole('radio').count()).toBe(3)
    await choices.getByTestId('rule-choice-prefix').check()
    expect(await card.getByTestId('project-confirm-rule').textContent()).toBe('Bash(touch *), Bash(ls *)')
    await page().screenshot({ path: path.join(SCREENSHOTS, 'bash-grant-1280.png') })
    await card.getByTestId('approve-project-confirm').click()
    expect(await ended(asked.scheduleId)).toMatchObject({ status: 'succeeded' })
    expect(existsSync(path.join(workspace, 'made-by-bash.txt'))).toBe(true)

    await open('#/rules', false)
    const shown = () => page().getByTestId('rule-row').locator('code').allTextContents()
    await expect.poll(async () => (await shown()).sort(), { timeout: SHOWN_WITHIN_MS }).toEqual(['Bash(ls *)', 'Bash(touch *)'])
    await page().getByRole('button', { name: 'Delete rule Bash(ls *)' }).click()
    await expect.poll(shown, { timeout: SHOWN_WITHIN_MS }).toEqual(['Bash(touch *)'])
    expect((await server.json<{ rules: ProjectRule[] }>('GET', '/permissions/rules')).body.rules.map((rule) => rule.rule)).toEqual(['Bash(touch *)'])
    expect(browser.problems).toEqual([])
  }, 60_000)
})

describe('on a phone', () => {
  it('decides a 400-line Write from the header queue at 390x844: no sideways scroll, 44 px targets, Allow in view', async () => {
    await page().setViewportSize(PHONE)
    await open('#/', false)
    const asked = await asking('phone', 'long', 'Write', { file_path: 'phone.txt', content: lines(400) })
    const queue = page().getByTestId('approval-queue')
    await queue.waitFor({ timeout: SHOWN_WITHIN_MS })
    for (const control of [queue, page().getByTestId('key-help-open'), page().getByTestId('nav-rules')]) expect((await control.boundingBox())?.height).toBeGreaterThanOrEqual(44)
    await queue.click()
    const dialog = page().getByTestId('queue-dialog')
    const card = dialog.getByTestId('approval-dialog')
    await expect.poll(() => card.getAttribute('data-request-id'), { timeout: SHOWN_WITHIN_MS }).toBe(asked.id)
    expect(await page().evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width)
    expect(await dialog.evaluate((element: Scrollable) => element.scrollWidth <= element.clientWidth)).toBe(true)
    for (const button of await dialog.getByRole('button').all()) if (await button.isVisible()) expect((await button.boundingBox())?.height).toBeGreaterThanOrEqual(44)
    for (const id of ['approve-once', 'approve-session', 'approve-project', 'deny']) expect(await inView(card.getByTestId(id), PHONE)).toBe(true)
    await page().screenshot({ path: path.join(SCREENSHOTS, 'phone-390.png') })
    await card
      .getByTestId('approve-once')
      .tap()
      .catch(() => card.getByTestId('approve-once').click())
    expect(await ended(asked.scheduleId)).toMatchObject({ status: 'succeeded' })
    expect(browser.problems).toEqual([])
  }, 60_000)
})
