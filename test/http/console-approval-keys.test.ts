/**
 * The approval keys on a session's page, in Chromium: the pending approval takes focus and
 * every control of it has an accessible name; `1` allows once; `3` asks to confirm the rule it
 * adds, naming it, Enter adds it and the Rules page lists it; `Esc` moves the focus to the
 * deny message, where typed digits decide nothing and Enter denies with the message; `?` lists
 * the keys. No console error or failed request.
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
const workspace = tempDirSync('console-approval-keys')
let server: TestServer
let browser: Browser

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ tools: builtinTools(), workspace }), launchChromium()])
  expect((await server.json('POST', '/sessions', { id: 'keyed', permissionMode: 'default' })).status).toBe(201)
  await browser.page.goto(`${server.url}/#/sessions/keyed`)
  await browser.page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: SHOWN_WITHIN_MS })
}, 60_000)

afterEach(() => denyEveryPending(server))

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** A Write that asks, its request (with the schedule's id) once its card is on the page. */
async function askingWrite(callId: string, file: string): Promise<AskingWrite> {
  const asked = await askingWriteIn(server, 'keyed', callId, file)
  await browser.page.locator(`[data-testid="approval-dialog"][data-request-id="${asked.id}"]`).waitFor({ timeout: SHOWN_WITHIN_MS })
  return asked
}

const ended = async (scheduleId: string): Promise<ScheduleReply['calls'][number] | undefined> => (await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)).body.calls[0]
const focusedTestId = () => browser.page.evaluate('document.activeElement && document.activeElement.dataset.testid')
const isPending = async (requestId: string): Promise<boolean> =>
  (await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions')).body.requests.some((request) => request.id === requestId)

describe('the approval keys', () => {
  it('focuses the approval, names each of its controls, and allows once with 1', async () => {
    const asked = await askingWrite('w-one', 'one.txt')
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('approval-dialog')
    const tree = await browser.page.getByTestId('approval-dialog').ariaSnapshot()
    for (const name of ['Allow once', 'Allow for this session', 'Allow for the project…', 'Deny']) expect(tree).toContain(`button "${name}"`)
    expect(tree).toMatch(/textbox "Message for the model/)
    // Every button, field and link has a name: the tree shows none bare.
    expect(tree).not.toMatch(/- (button|textbox|link)( \[[^\]]*\])?:?$/m)
    await browser.page.keyboard.press('1')
    expect(await ended(asked.scheduleId)).toMatchObject({ status: 'succeeded' })
    expect(readFileSync(path.join(workspace, 'one.txt'), 'utf8')).toBe('w-one\n')
    expect(browser.problems).toEqual([])
  }, 60_000)

  it('asks to confirm the rule 3 adds, naming it; Enter adds it and the Rules page lists it', async () => {
    const asked = await askingWrite('w-project', 'project.txt')
    expect(asked.suggestedRule).toBeDefined()
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('approval-dialog')
    await browser.page.keyboard.press('3')
    expect(await browser.page.getByTestId('project-confirm-rule').textContent()).toBe(asked.suggestedRule)
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('approve-project-confirm')
    mkdirSync(SCREENSHOTS, { recursive: true })
    await browser.page.screenshot({ path: path.join(SCREENSHOTS, 'keys-confirm-1280.png') })
    expect(await isPending(asked.id)).toBe(true)
    await browser.page.keyboard.press('Enter')
    expect(await ended(asked.scheduleId)).toMatchObject({ status: 'succeeded' })
    const events = (url: string): boolean => url.startsWith(`${server.url}/sessions/keyed/events`)
    // Leaving the session view closes its event stream: that aborted request is this step's doing.
    await browser.provoking({ url: events }, async () => {
      const closed = browser.page.waitForEvent('requestfailed', { predicate: (request) => events(request.url()), timeout: SHOWN_WITHIN_MS })
      await browser.page.getByTestId('nav-rules').click()
      await closed
    })
    await expect.poll(() => browser.page.getByTestId('rule-row').locator('code').allTextContents(), { timeout: SHOWN_WITHIN_MS }).toEqual([asked.suggestedRule])
    await browser.page.goto(`${server.url}/#/sessions/keyed`)
    expect(browser.problems).toEqual([])
  }, 60_000)

  it('moves the focus to the deny message on Esc; digits typed there decide nothing; Enter denies with the message', async () => {
    const asked = await askingWrite('w-deny', 'denied.txt')
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('approval-dialog')
    await browser.page.keyboard.press('Escape')
    await expect.poll(focusedTestId, { timeout: SHOWN_WITHIN_MS }).toBe('deny-message')
    await browser.page.keyboard.type('not 1 file but 3 in tmp/, just')
    expect(await isPending(asked.id)).toBe(true)
    await browser.page.keyboard.press('Enter')
    expect(await ended(asked.scheduleId)).toMatchObject({ status: 'denied', modelContent: 'not 1 file but 3 in tmp/, just' })
    expect(browser.problems).toEqual([])
  }, 60_000)

  it('lists every key in the ? help', async () => {
    await browser.page.evaluate('document.activeElement && document.activeElement.blur()')
    await browser.page.keyboard.press('?')
    const help = browser.page.getByRole('dialog', { name: 'Keyboard shortcuts', exact: true })
    await help.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await help.locator('dt').allTextContents()).toEqual(['1', '2', '3', 'Esc or d', 'j', 'k', '?'])
    await browser.page.keyboard.press('Escape')
    await help.waitFor({ state: 'detached', timeout: SHOWN_WITHIN_MS })
    expect(browser.problems).toEqual([])
  }, 60_000)
})
