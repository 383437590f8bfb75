/**
 * Readable sessions in the web console, in Chromium (issue 28): a labelled session is shown by
 * its label and one without by its workspace's folder, its turns are numbered 1, 2, a failed
 * call is open with its reason, a filter by status keeps the failed one, "Abort turn" shows
 * only while a turn runs, and the calls are named without one request per schedule. A
 * notification permission granted to the page turns the header's bell on (remembered across
 * a reload), and an approval arriving while the tab is hidden shows a notification and plays
 * the tone; one arriving while it is visible does not. The sessions list says which session
 * waits and for how long, and pages past 200 sessions with "More". No console error or failed
 * request the test does not provoke.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Locator } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, SessionList } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { askingWrite, denyEveryPending } from '../support/pending-writes.js'
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

/**
 * Runs before the console's code on every load: `window.Notification` records what it is asked
 * to show (then shows it), the oscillators made are counted with their context's state, and the page's visibility is the
 * test's to set (headless Chromium has no other tab to hide it behind).
 */
const PAGE_PROBES = `
  window.__shown = []
  window.__tones = 0
  const Real = window.Notification
  class Recorded extends Real {
    constructor(title, options) {
      window.__shown.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' })
      super(title, options)
    }
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission })
  Recorded.requestPermission = (...args) => Real.requestPermission(...args)
  window.Notification = Recorded
  const createOscillator = AudioContext.prototype.createOscillator
  window.__toneStates = []
  AudioContext.prototype.createOscillator = function (...args) {
    window.__tones += 1
    window.__toneStates.push(this.state)
    return createOscillator.apply(this, args)
  }
  let hidden = false
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') })
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden })
  window.__setHidden = (value) => {
    hidden = value
    document.dispatchEvent(new Event('visibilitychange'))
  }
`

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ tools: builtinTools(), workspace }), launchChromium(['--disable-audio-output'])])
  await browser.page.addInitScript(PAGE_PROBES)
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
const shownNotifications = () => page().evaluate<{ title: string; body: string; tag: string }[]>('window.__shown')

/** `<name>-1280.png` and `<name>-390.png` of the page as it stands. */
async function shoot(name: string): Promise<void> {
  for (const [suffix, size] of [
    ['1280', { width: 1280, height: 800 }],
    ['390', { width: 390, height: 844 }],
  ] as const) {
    await page().setViewportSize(size)
    await page().screenshot({ path: path.join(SCREENSHOTS, `${name}-${suffix}.png`) })
  }
  await page().setViewportSize({ width: 1280, height: 800 })
}

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
    await shoot('session-turns')

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

describe('approval alerts', () => {
  it('notifies of an approval that arrives while the tab is hidden, with the permission granted and the setting remembered', async () => {
    await page().context().grantPermissions(['notifications'], { origin: server.url })
    await page().goto(`${server.url}/#/`)
    const bell = page().getByTestId('notify-toggle')
    await bell.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await bell.getAttribute('aria-pressed')).toBe('false')
    expect(await page().evaluate('Notification.permission')).toBe('granted')
    await bell.click()
    await expect.poll(() => bell.getAttribute('aria-pressed')).toBe('true')
    await page().getByTestId('sound-toggle').click()
    expect(JSON.parse(await page().evaluate<string>('localStorage.getItem("toolexec.alerts")'))).toEqual({ notify: true, sound: true })
    await page().reload()
    await expect.poll(() => page().getByTestId('notify-toggle').getAttribute('aria-pressed'), { timeout: SHOWN_WITHIN_MS }).toBe('true')
    expect(await page().getByTestId('sound-toggle').getAttribute('aria-pressed')).toBe('true')

    expect((await server.json('POST', '/sessions', { id: 'waits', label: 'Review the README', permissionMode: 'default' })).status).toBe(201)
    await page().evaluate('window.__setHidden(true)')
    const asked = await askingWrite(server, 'waits', 'w-hidden', 'hidden.txt')
    await expect.poll(shownNotifications, { timeout: SHOWN_WITHIN_MS }).toEqual([{ title: 'Approval waiting: Write', body: `${path.join(workspace, 'hidden.txt')}\nSession waits`, tag: asked.id }])
    expect(await page().evaluate('window.__tones')).toBe(1)
    expect(await page().evaluate('window.__toneStates')).toEqual(['running'])

    // Seen on the page: another approval while it is visible tells nobody.
    await page().evaluate('window.__setHidden(false)')
    // Another session: the first's next schedule would wait behind its approval.
    expect((await server.json('POST', '/sessions', { id: 'waits-too', permissionMode: 'default' })).status).toBe(201)
    await askingWrite(server, 'waits-too', 'w-visible', 'visible.txt')
    await expect.poll(() => page().getByTestId('pending-badge').textContent(), { timeout: SHOWN_WITHIN_MS }).toBe('2')
    expect(await shownNotifications()).toHaveLength(1)
    expect(await page().evaluate('window.__tones')).toBe(1)

    // The list names who waits, and for how long.
    const waiting = page().locator('[data-testid="session-row"][data-session-id="waits"]')
    expect(await waiting.getByTestId('session-name').textContent()).toBe('Review the README')
    await expect.poll(() => waiting.getByTestId('session-waiting').textContent(), { timeout: SHOWN_WITHIN_MS }).toMatch(/^1 approval waiting for \d+ s \(since /)
    await shoot('sessions')
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
