/**
 * Readable sessions in the web console, in Chromium (issue 28): a labelled session is shown by
 * its label and one without by its workspace's folder, its turns are numbered 1, 2, a failed
 * call is open with its reason, a filter by status keeps the failed one, "Abort turn" shows
 * only while a turn runs, and the calls are named without one request per schedule. The
 * sessions list pages past 200 sessions with "More". No console error or failed request the
 * test does not provoke.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Locator } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, SessionList } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { denyEveryPending } from '../support/pending-writes.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const SHOWN_WITHIN_MS = 15_000
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const SCREENSHOTS = path.join(REPO_ROOT, 'test-results', 'console')
const workspace = tempDirSync('console-sessions')
let server: TestServer
let browser: Browser
/** Every request of the page to the API, as `METHOD /path`. */
const requested: string[] = []

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ tools: builtinTools(), workspace }), launchChromium()])
  browser.page.on('request', (request) => {
    const url = new URL(request.url())
    if (url.origin === server.url && url.pathname !== '/' && !url.pathname.startsWith('/console/')) requested.push(`${request.method()} ${url.pathname}`)
  })
  mkdirSync(SCREENSHOTS, { recursive: true })
}, 60_000)

afterEach(() => denyEveryPending(server))

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** What the functions run in the page use of its elements (the test project has no DOM library). */
interface PageElement {
  getAttribute(name: string): string | null
}

const page = () => browser.page
const row = (callId: string): Locator => page().locator(`[data-testid="call-row"][data-call-id="${callId}"]`)
const statusOf = (callId: string) => () =>
  row(callId)
    .getAttribute('data-status', { timeout: 1_000 })
    .catch(() => null)

async function schedule(sessionId: string, turnId: string, calls: unknown[]): Promise<string> {
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, turnId, calls })
  expect(accepted.status).toBe(202)
  return accepted.body.scheduleId
}

/** Leaving a session view closes its event stream: that aborted request is the step's doing. */
async function leaveSessionView(sessionId: string, step: () => Promise<unknown>): Promise<void> {
  const events = (url: string): boolean => url.startsWith(`${server.url}/sessions/${sessionId}/events`)
  await browser.provoking({ url: events }, async () => {
    const closed = page().waitForEvent('requestfailed', { predicate: (request) => events(request.url()), timeout: SHOWN_WITHIN_MS })
    await step()
    await closed
  })
}

describe('readable sessions', () => {
  it('shows a session by its label, numbers its turns, opens a failed call with its reason, filters by status, and offers Abort only while a turn runs', async () => {
    expect((await server.json('POST', '/sessions', { id: 'labelled', label: 'Fix the login timeout', permissionMode: 'bypassPermissions' })).status).toBe(201)
    writeFileSync(path.join(workspace, 'notes.txt'), 'notes\n')
    const first = await schedule('labelled', 'turn-a', [
      { id: 'read-ok', name: 'Read', input: { file_path: 'notes.txt' } },
      { id: 'read-missing', name: 'Read', input: { file_path: 'no-such-file.txt' } },
    ])
    const second = await schedule('labelled', 'turn-b', [{ id: 'read-again', name: 'Read', input: { file_path: 'notes.txt' } }])
    for (const id of [first, second]) await server.json('GET', `/schedules/${id}?wait=10`)

    requested.length = 0
    await page().goto(`${server.url}/#/sessions/labelled`)
    await expect.poll(() => page().getByTestId('session-name').textContent(), { timeout: SHOWN_WITHIN_MS }).toBe('Fix the login timeout')
    expect(await page().getByTestId('session-id').textContent()).toBe('labelled')
    await expect.poll(statusOf('read-again'), { timeout: SHOWN_WITHIN_MS }).toBe('succeeded')
    expect(await page().getByTestId('turn-number').allTextContents()).toEqual(['turn 1', 'turn 2'])
    // Named from the events alone: no request per schedule.
    expect(requested.filter((line) => line.includes('/schedules/'))).toEqual([])
    expect(await row('read-ok').getByTestId('call-tool').textContent()).toBe('Read')

    // The failed call is open, with its reason; the one that succeeded stays closed.
    expect(await statusOf('read-missing')()).toBe('failed')
    expect(await row('read-missing').getByTestId('call-toggle').getAttribute('aria-expanded')).toBe('true')
    expect(await row('read-missing').getByTestId('call-reason').textContent()).toMatch(/no-such-file\.txt/)
    expect(await row('read-ok').getByTestId('call-toggle').getAttribute('aria-expanded')).toBe('false')
    expect(await row('read-ok').getByTestId('call-reason').count()).toBe(0)

    await page().getByTestId('status-filter').selectOption('problems')
    expect(
      await page()
        .getByTestId('call-row')
        .evaluateAll((rows: PageElement[]) => rows.map((element) => element.getAttribute('data-call-id'))),
    ).toEqual(['read-missing'])
    expect(await page().getByTestId('turn-number').allTextContents()).toEqual(['turn 1'])
    await page().getByTestId('status-filter').selectOption('all')
    expect(await page().getByTestId('call-row').count()).toBe(3)
    await page().screenshot({ path: path.join(SCREENSHOTS, 'session-turns-1280.png') })

    expect(await page().getByTestId('abort-turn').count()).toBe(0)
    await schedule('labelled', 'turn-c', [{ id: 'sleeps', name: 'Bash', input: { command: 'sleep 30' } }])
    await expect.poll(statusOf('sleeps'), { timeout: SHOWN_WITHIN_MS }).toBe('running')
    expect(await page().getByTestId('turn-number').allTextContents()).toEqual(['turn 1', 'turn 2', 'turn 3'])
    await page().getByTestId('abort-turn').click()
    await expect.poll(statusOf('sleeps'), { timeout: SHOWN_WITHIN_MS }).toBe('cancelled')
    await page().getByTestId('abort-turn').waitFor({ state: 'detached', timeout: SHOWN_WITHIN_MS })

    // Renamed in place; the list shows the new name, and a session without a label its folder.
    await page().getByTestId('rename-session').click()
    await page().getByTestId('rename-input').fill('Fix the login timeout, take 2')
    await page().getByTestId('rename-save').click()
    await expect.poll(() => page().getByTestId('session-name').textContent(), { timeout: SHOWN_WITHIN_MS }).toBe('Fix the login timeout, take 2')
    expect((await server.json<{ label?: string }>('GET', '/sessions/labelled')).body.label).toBe('Fix the login timeout, take 2')
    expect((await server.json('POST', '/sessions', { id: 'unlabelled' })).status).toBe(201)
    await leaveSessionView('labelled', () => page().getByTestId('nav-sessions').click())
    const names = page().locator('[data-testid="session-row"] [data-testid="session-name"]')
    await expect.poll(() => names.allTextContents(), { timeout: SHOWN_WITHIN_MS }).toHaveLength(2)
    const [unlabelled, labelled] = await names.allTextContents()
    expect(labelled).toBe('Fix the login timeout, take 2')
    expect(unlabelled).toMatch(new RegExp(`^${path.basename(workspace)} · `))
    expect(browser.problems).toEqual([])
  }, 60_000)
})

describe('the sessions list', () => {
  it('pages past 200 sessions with More, 100 at a time, down to the oldest', async () => {
    for (let i = 0; i < 205; i++) expect((await server.json('POST', '/sessions', { id: `paged-${String(i).padStart(3, '0')}` })).status).toBe(201)
    const total = (await server.json<SessionList>('GET', '/sessions?limit=500')).body.sessions.length
    expect(total).toBeGreaterThan(205)
    await page().goto(`${server.url}/#/`)
    // A fresh page: visible, whatever the test before left.
    await page().reload()
    const rows = page().getByTestId('session-row')
    await expect.poll(() => rows.count(), { timeout: SHOWN_WITHIN_MS }).toBe(100)
    await page().getByTestId('sessions-more').click()
    await expect.poll(() => rows.count(), { timeout: SHOWN_WITHIN_MS }).toBe(200)
    await page().getByTestId('sessions-more').click()
    await expect.poll(() => rows.count(), { timeout: SHOWN_WITHIN_MS }).toBe(total)
    await page().getByTestId('sessions-more').waitFor({ state: 'detached', timeout: SHOWN_WITHIN_MS })
    // The oldest session is last, once.
    expect(await rows.last().getAttribute('data-session-id')).toBe('labelled')
    expect(await page().locator('[data-testid="session-row"][data-session-id="paged-000"]').count()).toBe(1)
    expect(browser.problems).toEqual([])
  }, 120_000)
})
