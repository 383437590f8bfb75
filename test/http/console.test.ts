/**
 * The web console at `/`, in Debian's Chromium, against the real server (a child process with
 * a token). One session is driven through the whole of issue 14's acceptance, step by step:
 * the token dialog (a wrong token is refused with a clear sentence), a session made through
 * the form, a schedule with a Read and a 1 MB Bash side by side then a Write that asks (its
 * diff in the approval dialog, the pending badge and the tab title), allowed for the session;
 * each row's model-content is exactly the API's modelContent, the Bash artifact downloads
 * byte for byte, a second Write runs unasked; a grant for the project shows on the rules page
 * and is deleted there; an answer that loses a race is shown as an outcome, not an error; the
 * server is killed (SIGKILL) and restarted with an approval pending: the console reconnects,
 * shows the request once, nothing of the timeline doubled, and the answer runs the call once;
 * an aborted `sleep 30` ends cancelled. Screenshots of the session view and of the approval
 * dialog at 1280x800 and 390x844 go to test-results/console/. Any console error, failed
 * request or error reply the test does not provoke fails it.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleCallInput } from '../../src/contracts/api.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { artifactOf, CONSOLE_TOKEN, ConsoleServer, modelContentText, type StoredEvent } from '../support/console-harness.js'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const SCREENSHOTS = path.join(REPO_ROOT, 'test-results', 'console')
const WIDE = { width: 1280, height: 800 }
const NARROW = { width: 390, height: 844 }
/** How long the console may take to show what the server did (a loaded 2-core machine). */
const SHOWN_WITHIN_MS = 15_000

const server = new ConsoleServer()
let browser: Browser
let page: Page
let sessionId: string
/** Every event frame the page's EventSources received, in order, as Chromium's network layer saw it. */
const received: { id: string; type: string }[] = []

/** Records the frames through the DevTools protocol: what reached the page, whatever the console does with it. */
async function recordEventFrames(): Promise<void> {
  const devtools = await page.context().newCDPSession(page)
  devtools.on('Network.eventSourceMessageReceived', (frame) => received.push({ id: frame.eventId, type: frame.eventName }))
  await devtools.send('Network.enable')
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  ;[, browser] = await Promise.all([server.start(), launchChromium()])
  page = browser.page
  // A console that asks "are you sure?" before a delete gets a yes.
  page.on('dialog', (dialog) => void dialog.accept())
  await recordEventFrames()
  await page.setViewportSize(WIDE)
  process.stdout.write(`console screenshots: ${SCREENSHOTS}\n`)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server.kill()
})

/** The API's routes (not the page `/` nor its assets under `/console/`): the failures a step may provoke. */
function apiUrl(url: string): boolean {
  if (!url.startsWith(`${server.url}/`)) return false
  const { pathname } = new URL(url)
  return pathname !== '/' && !pathname.startsWith('/console/')
}

const byTestId = (id: string, attributes: Record<string, string> = {}): string =>
  `[data-testid="${id}"]${Object.entries(attributes)
    .map(([name, value]) => `[${name}="${value}"]`)
    .join('')}`

const sessionView = (): Locator => page.locator(byTestId('session-view', { 'data-session-id': sessionId }))
const callRow = (callId: string): Locator => sessionView().locator(byTestId('call-row', { 'data-call-id': callId }))
const dialogFor = (requestId: string): Locator => page.locator(byTestId('approval-dialog', { 'data-request-id': requestId }))

async function attributeBecomes(locator: Locator, name: string, value: string, timeout = SHOWN_WITHIN_MS): Promise<void> {
  await expect.poll(() => locator.getAttribute(name, { timeout: 1_000 }).catch(() => null), { timeout, interval: 50 }).toBe(value)
}

async function statusBecomes(callId: string, status: string, timeout = SHOWN_WITHIN_MS): Promise<void> {
  await attributeBecomes(callRow(callId), 'data-status', status, timeout)
}

/** Leaving the session view closes its event stream: that aborted request is this step's doing. */
async function leaveSessionView(step: () => Promise<void>): Promise<void> {
  const events = (url: string): boolean => url.startsWith(`${server.url}/sessions/${encodeURIComponent(sessionId)}/events`)
  await browser.provoking({ url: events }, async () => {
    const closed = page.waitForEvent('requestfailed', { predicate: (request) => events(request.url()), timeout: SHOWN_WITHIN_MS })
    await step()
    await closed
  })
}

/** The details part of a row, opened once. */
async function openDetails(callId: string): Promise<Locator> {
  const row = callRow(callId)
  const content = row.locator(byTestId('model-content'))
  if (!(await content.isVisible())) await row.locator(byTestId('call-toggle')).first().click()
  await content.waitFor({ state: 'visible', timeout: SHOWN_WITHIN_MS })
  return row
}

/** The page's pending count as the badge and the tab title show it. */
async function pendingShown(count: number): Promise<void> {
  const badge = page.locator(byTestId('pending-badge'))
  if (count === 0) await badge.waitFor({ state: 'hidden', timeout: SHOWN_WITHIN_MS })
  else await expect.poll(async () => ((await badge.isVisible()) ? (await badge.textContent())?.trim() : null), { timeout: SHOWN_WITHIN_MS }).toBe(String(count))
  await expect.poll(() => page.title(), { timeout: SHOWN_WITHIN_MS }).toBe(count === 0 ? 'toolexec' : `(${count}) toolexec`)
}

/** `<name>-1280.png` and `<name>-390.png` of the page from its top, light; `<name>-1280-dark.png` too when asked. */
async function screenshot(name: string, options: { dark?: boolean } = {}): Promise<void> {
  const shots: [string, { width: number; height: number }, 'light' | 'dark'][] = [
    ['1280', WIDE, 'light'],
    ['390', NARROW, 'light'],
  ]
  if (options.dark === true) shots.push(['1280-dark', WIDE, 'dark'])
  for (const [suffix, size, colorScheme] of shots) {
    await page.setViewportSize(size)
    await page.emulateMedia({ colorScheme })
    await page.evaluate('window.scrollTo(0, 0)')
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${suffix}.png`) })
  }
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
}

/** A Write that asks (default mode, a file the session has no grant for), and its pending request. */
async function postAskingWrite(callId: string, file: string, content: string): Promise<{ accepted: ScheduleAcceptedReply; requestId: string }> {
  const accepted = await server.postSchedule(sessionId, [{ id: callId, name: 'Write', input: { file_path: file, content } }])
  const request = await server.pendingRequestFor(sessionId, callId)
  await dialogFor(request.id).waitFor({ state: 'visible', timeout: SHOWN_WITHIN_MS })
  return { accepted, requestId: request.id }
}

/** What the functions run in the page use of its elements (the test project has no DOM library). */
interface PageElement {
  querySelectorAll(selector: string): Iterable<PageElement>
  getAttribute(name: string): string | null
  readonly textContent: string | null
}

/** The schedule as the console draws it: its groups in order, each the ids of its call rows in order. */
async function drawnGroups(scheduleId: string): Promise<string[][]> {
  const schedule = sessionView().locator(byTestId('schedule', { 'data-schedule-id': scheduleId }))
  await schedule.waitFor({ timeout: SHOWN_WITHIN_MS })
  return schedule.evaluate((element: PageElement) =>
    [...element.querySelectorAll('[data-testid="group"]')]
      .sort((a, b) => Number(a.getAttribute('data-group-index')) - Number(b.getAttribute('data-group-index')))
      .map((group) => [...group.querySelectorAll('[data-testid="call-row"]')].map((row) => row.getAttribute('data-call-id') ?? '')),
  )
}

/** Every call row's id in the session view, in page order (a doubled row shows up twice). */
const drawnCallIds = (): Promise<string[]> => sessionView().evaluate((view: PageElement) => [...view.querySelectorAll('[data-testid="call-row"]')].map((row) => row.getAttribute('data-call-id') ?? ''))

const drawnScheduleIds = (): Promise<string[]> =>
  sessionView().evaluate((view: PageElement) => [...view.querySelectorAll('[data-testid="schedule"]')].map((schedule) => schedule.getAttribute('data-schedule-id') ?? ''))

async function expectModelContent(scheduleId: string, callId: string): Promise<void> {
  const record = await server.call(scheduleId, callId)
  const row = await openDetails(callId)
  const shown = await row.locator(byTestId('model-content')).evaluate((element: PageElement) => element.textContent)
  expect(shown).toBe(modelContentText(record.modelContent))
}

describe('the web console in Chromium', () => {
  it('asks for the token, refuses a wrong one with a clear sentence, and keeps the right one out of the URL', async () => {
    await browser.provoking({ url: apiUrl }, async () => {
      await page.goto(`${server.url}/`)
      await page.getByTestId('token-dialog').waitFor({ timeout: SHOWN_WITHIN_MS })
      await page.getByTestId('token-input').fill(`${CONSOLE_TOKEN}-wrong`)
      await page.getByTestId('token-submit').click()
      const error = page.getByTestId('token-error')
      await error.waitFor({ timeout: SHOWN_WITHIN_MS })
      expect(await error.textContent()).toContain('The server refused this token (401).')
      expect(await page.getByTestId('token-dialog').isVisible()).toBe(true)
    })
    expect(browser.provoked.some((problem) => problem.startsWith(`reply 401 to GET (${server.url}/me`))).toBe(true)

    await page.getByTestId('token-input').fill(CONSOLE_TOKEN)
    await page.getByTestId('token-submit').click()
    await page.getByTestId('token-dialog').waitFor({ state: 'hidden', timeout: SHOWN_WITHIN_MS })
    // An empty list has no height: attached, not visible.
    await page.getByTestId('session-list').waitFor({ state: 'attached', timeout: SHOWN_WITHIN_MS })
    expect(await page.evaluate("sessionStorage.getItem('toolexec.token')")).toBe(CONSOLE_TOKEN)
    expect(page.url()).not.toContain(CONSOLE_TOKEN)
    await pendingShown(0)
    expect(browser.problems).toEqual([])
  })

  it('creates a session through the form and lists it with its status and workspace', async () => {
    const before = new Set((await server.sessions()).map((session) => session.id))
    await page.getByTestId('new-session').click()
    const form = page.getByTestId('session-form')
    await form.waitFor({ timeout: SHOWN_WITHIN_MS })
    await page.getByTestId('session-workspace').fill(server.workspace)
    await page.getByTestId('session-mode').selectOption('default')
    await page.getByTestId('session-interactive').check()
    await page.getByTestId('session-create').click()
    const created = await expect
      .poll(async () => (await server.sessions()).filter((session) => !before.has(session.id)), { timeout: SHOWN_WITHIN_MS })
      .toHaveLength(1)
      .then(async () => (await server.sessions()).find((session) => !before.has(session.id)))
    if (created === undefined) throw new Error('no session was created')
    expect(created).toMatchObject({ workspace: server.workspace, permissionMode: 'default', interactive: true })
    sessionId = created.id

    await page.goto(`${server.url}/#/`)
    const row = page.locator(byTestId('session-row', { 'data-session-id': sessionId }))
    await row.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect((await row.getByTestId('session-status').textContent())?.trim()).toBe('idle')
    expect(await row.textContent()).toContain(server.workspace)
    await row.locator(`a[href="#/sessions/${sessionId}"]`).first().click()
    await sessionView().waitFor({ timeout: SHOWN_WITHIN_MS })
    await attributeBecomes(page.getByTestId('connection-state'), 'data-state', 'live')
    expect(browser.problems).toEqual([])
  })

  let firstSchedule: ScheduleAcceptedReply
  const NOTES_BEFORE = 'line one\nline two\n'
  const NOTES_AFTER = 'line one\nline 2\nline three\n'
  /** Exactly 1 MiB: 131,072 lines of 8 bytes. */
  const MEGABYTE_COMMAND = 'seq 1000000 1131071'

  it('draws the groups as scheduled and shows the Write that asks with its diff, the badge and the title', async () => {
    server.writeWorkspaceFile('notes.txt', NOTES_BEFORE)
    const calls: ScheduleCallInput[] = [
      { id: 'r1', name: 'Read', input: { file_path: 'notes.txt' } },
      { id: 'b1', name: 'Bash', input: { command: MEGABYTE_COMMAND } },
      { id: 'w1', name: 'Write', input: { file_path: 'notes.txt', content: NOTES_AFTER } },
    ]
    firstSchedule = await server.postSchedule(sessionId, calls)
    // The Read and the read-only Bash run side by side, the Write alone after them.
    expect(firstSchedule.groups).toEqual([['r1', 'b1'], ['w1']])
    const request = await server.pendingRequestFor(sessionId, 'w1')
    const dialog = dialogFor(request.id)
    await dialog.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await drawnGroups(firstSchedule.scheduleId)).toEqual(firstSchedule.groups)
    await statusBecomes('r1', 'succeeded')
    await statusBecomes('b1', 'succeeded')
    await statusBecomes('w1', 'awaiting_permission')
    const [read, bash] = await Promise.all([callRow('r1').boundingBox(), callRow('b1').boundingBox()])
    if (read === null || bash === null) throw new Error('a row of the parallel group is not drawn')
    expect(bash.x).toBeGreaterThanOrEqual(read.x + read.width - 1)
    expect(bash.y).toBeLessThan(read.y + read.height)

    expect((await dialog.getByTestId('approval-tool').textContent())?.trim()).toBe('Write')
    expect(await dialog.getByTestId('approval-input').textContent()).toContain(path.join(server.workspace, 'notes.txt'))
    expect((await dialog.getByTestId('approval-risk').textContent())?.toLowerCase()).toContain(request.riskLevel)
    expect(await dialog.getByTestId('approval-reason').textContent()).toContain(request.reason)
    expect(await dialog.getByTestId('approval-rule').textContent()).toContain(request.suggestedRule ?? 'no suggested rule')
    const diffLines = await dialog.getByTestId('approval-diff').getByTestId('diff-line').allTextContents()
    expect(diffLines.some((line) => line.includes('line two'))).toBe(true)
    expect(diffLines.some((line) => line.includes('line three'))).toBe(true)
    await pendingShown(1)
    await screenshot('approval')
    expect(browser.problems).toEqual([])
  })

  it('allows the Write for the session: every row ends succeeded with exactly the modelContent the API has', async () => {
    const request = (await server.pendingRequests(sessionId))[0]
    if (request === undefined) throw new Error('no pending request')
    await dialogFor(request.id).getByTestId('approve-session').click()
    await dialogFor(request.id).waitFor({ state: 'hidden', timeout: SHOWN_WITHIN_MS })
    await statusBecomes('w1', 'succeeded')
    // The view as a person sees it: the parallel group closed, the Write's diff open.
    await openDetails('w1')
    await screenshot('session', { dark: true })
    const done = await server.schedule(firstSchedule.scheduleId, 10)
    expect(done.calls.map((call) => [call.id, call.status])).toEqual([
      ['r1', 'succeeded'],
      ['b1', 'succeeded'],
      ['w1', 'succeeded'],
    ])
    expect(readFileSync(path.join(server.workspace, 'notes.txt'), 'utf8')).toBe(NOTES_AFTER)
    for (const call of ['r1', 'b1', 'w1']) await expectModelContent(firstSchedule.scheduleId, call)
    for (const call of ['r1', 'b1', 'w1']) expect(await callRow(call).getByTestId('call-timing').textContent()).toMatch(/\d/)
    expect(await callRow('r1').getByTestId('call-tool').textContent()).toContain('Read')
    expect(await callRow('b1').getByTestId('call-summary').textContent()).toContain(MEGABYTE_COMMAND)
    const diff = await callRow('w1').getByTestId('call-display').getByTestId('diff-line').allTextContents()
    expect(diff.some((line) => line.includes('line 2'))).toBe(true)
    await pendingShown(0)
    expect(browser.problems).toEqual([])
  })

  it("downloads the 1 MB Bash output's artifact byte for byte", async () => {
    const record = await server.call(firstSchedule.scheduleId, 'b1')
    const { artifactId } = artifactOf(record)
    const expected = await server.artifact(sessionId, artifactId)
    expect(expected.length).toBe(1_048_576)
    const row = await openDetails('b1')
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: SHOWN_WITHIN_MS }), row.getByTestId('artifact-download').click()])
    const saved = await download.path()
    expect(readFileSync(saved).equals(expected)).toBe(true)
    expect(download.suggestedFilename()).toContain(artifactId)
    expect(browser.problems).toEqual([])
  })

  it("opens the Bash artifact's first 64 KiB, asked for with a Range header, and says how much of it that is", async () => {
    const record = await server.call(firstSchedule.scheduleId, 'b1')
    const expected = await server.artifact(sessionId, artifactOf(record).artifactId)
    const row = await openDetails('b1')
    const [request] = await Promise.all([page.waitForRequest((r) => r.url().includes('/artifacts/')), row.getByTestId('artifact-open').click()])
    expect(await request.headerValue('range')).toBe('bytes=0-65535')
    await expect.poll(() => row.getByTestId('artifact-preview').textContent(), { timeout: SHOWN_WITHIN_MS }).toBe(expected.subarray(0, 65_536).toString('utf8'))
    expect(await row.getByTestId('artifact-preview-size').textContent()).toBe('First 64 KiB of 1.0 MiB: download for the whole')
    await row.getByTestId('artifact-open').click()
    expect(await row.getByTestId('artifact-preview').count()).toBe(0)
    expect(browser.problems).toEqual([])
  })

  it('runs a second Write to the same file unasked', async () => {
    const second = await server.postSchedule(sessionId, [{ id: 'w2', name: 'Write', input: { file_path: 'notes.txt', content: 'second\n' } }])
    await statusBecomes('w2', 'succeeded')
    const history = await server.history(sessionId)
    expect(history.filter((event) => event.type === 'PermissionRequested' && event.data.callId === 'w2')).toEqual([])
    await expectModelContent(second.scheduleId, 'w2')
    expect(await page.locator(byTestId('approval-dialog')).count()).toBe(0)
    expect(browser.problems).toEqual([])
  })

  it('grants a Write for the project: the rule shows on the rules page and is deleted there', async () => {
    const { requestId } = await postAskingWrite('w3', 'project.txt', 'for the project\n')
    await dialogFor(requestId).getByTestId('approve-project').click()
    await dialogFor(requestId).getByTestId('approve-project-confirm').click()
    await statusBecomes('w3', 'succeeded')
    const [rule] = await server.rules()
    if (rule === undefined) throw new Error('no project rule was stored')

    await leaveSessionView(() => page.getByTestId('nav-rules').click())
    const row = page.locator(byTestId('rule-row', { 'data-rule-id': rule.id }))
    await row.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await row.textContent()).toContain(rule.rule)
    await row.getByTestId('rule-delete').click()
    await row.waitFor({ state: 'detached', timeout: SHOWN_WITHIN_MS })
    expect(await server.rules()).toEqual([])

    await page.goto(`${server.url}/#/sessions/${sessionId}`)
    await sessionView().waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(browser.problems).toEqual([])
  })

  it('shows an answer that lost the race as an outcome, not an error', async () => {
    const { accepted, requestId } = await postAskingWrite('w4', 'race.txt', 'raced\n')
    const answerRoute = `${server.url}/permissions/${requestId}`
    // Another client answers just before the console's own answer reaches the server.
    await page.route(answerRoute, async (route) => {
      await server.ok('POST', `/permissions/${requestId}`, { decision: 'deny', message: 'answered in another tab' }, 200)
      await route.continue()
    })
    try {
      await browser.provoking({ url: (url) => url === answerRoute }, async () => {
        await dialogFor(requestId).getByTestId('approve-once').click()
        await dialogFor(requestId).getByTestId('approval-outcome').waitFor({ timeout: SHOWN_WITHIN_MS })
      })
    } finally {
      await page.unroute(answerRoute)
    }
    expect(browser.provoked).toContain(`reply 409 to POST (${answerRoute})`)
    expect(await dialogFor(requestId).getByTestId('approval-outcome').textContent()).toMatch(/den(y|ied)/i)
    await statusBecomes('w4', 'denied')
    expect(await server.call(accepted.scheduleId, 'w4')).toMatchObject({ status: 'denied' })
    await pendingShown(0)
    expect(browser.problems).toEqual([])
  })
  it('reconnects after kill -9 and a restart with an approval pending: the request shows once, nothing doubles, the answer runs the call once', async () => {
    // The view is caught up (the step before waited for its last result): what it gets from here on is new.
    const knownBefore = (await server.session(sessionId)).lastEventId
    await expect.poll(() => received.at(-1)?.id, { timeout: SHOWN_WITHIN_MS }).toBe(String(knownBefore))
    const receivedBefore = received.length
    const { accepted, requestId } = await postAskingWrite('w5', 'restart.txt', 'after the restart\n')
    await pendingShown(1)
    const connection = page.getByTestId('connection-state')
    const port = server.port
    browser.provoked.length = 0
    await browser.provoking({ url: apiUrl }, async () => {
      await server.kill()
      await attributeBecomes(connection, 'data-state', 'reconnecting')
      await server.start(port)
      await attributeBecomes(connection, 'data-state', 'live', 30_000)
      // Caught up: the page has received the last event the server stored (it asks again for w5 after a restart).
      const { lastEventId } = await server.session(sessionId)
      await expect.poll(() => received.at(-1)?.id, { timeout: SHOWN_WITHIN_MS }).toBe(String(lastEventId))
    })
    // The stream did drop: its request failed with the server.
    expect(browser.provoked.some((problem) => problem.startsWith('request failed: GET') && problem.includes(`/sessions/${sessionId}/events`))).toBe(true)

    const history = await server.history(sessionId)
    expect(history.map((event) => event.id)).toEqual(history.map((_, index) => String(index + 1)))
    const scheduled = history.filter((event) => event.type === 'ScheduleAccepted')
    expect((await drawnScheduleIds()).sort()).toEqual(scheduled.map((event) => String(event.data.scheduleId)).sort())
    expect((await drawnCallIds()).sort()).toEqual(['b1', 'r1', 'w1', 'w2', 'w3', 'w4', 'w5'])
    // The card of the lost race (w4) may stay to say so; the request still open is asked once.
    const dialogs = page.locator(byTestId('approval-dialog')).filter({ hasNot: page.getByTestId('approval-outcome') })
    expect(await dialogs.count()).toBe(1)
    expect(await dialogs.getAttribute('data-request-id')).toBe(requestId)
    await statusBecomes('w5', 'awaiting_permission')
    await pendingShown(1)

    await dialogFor(requestId).getByTestId('approve-once').click()
    await statusBecomes('w5', 'succeeded')
    expect(readFileSync(path.join(server.workspace, 'restart.txt'), 'utf8')).toBe('after the restart\n')
    const after = await server.history(sessionId)
    const ofW5 = (type: string): StoredEvent[] => after.filter((event) => event.type === type && event.data.callId === 'w5')
    // The restarted server asks again under the same permission id; the call runs once.
    expect(new Set(ofW5('PermissionRequested').map((event) => event.data.permissionId))).toEqual(new Set([requestId]))
    expect([ofW5('PermissionResolved'), ofW5('ToolCallStarted'), ofW5('ToolCallResult')].map((events) => events.length)).toEqual([1, 1, 1])
    await expectModelContent(accepted.scheduleId, 'w5')
    // Everything before w5's result is applied by now (events apply in order): still one row per call and schedule.
    expect((await drawnCallIds()).sort()).toEqual(['b1', 'r1', 'w1', 'w2', 'w3', 'w4', 'w5'])
    expect((await drawnScheduleIds()).sort()).toEqual(scheduled.map((event) => String(event.data.scheduleId)).sort())
    expect(await dialogs.count()).toBe(0)
    await pendingShown(0)
    // On the wire too: across the drop the page got each later event exactly once, in order.
    const since = received.slice(receivedBefore).map((frame) => Number(frame.id))
    expect(since).toEqual(after.slice(knownBefore).map((event) => Number(event.id)))
    expect(browser.problems).toEqual([])
  }, 60_000)

  it('explains the 409 of deleting a session with work going on, and aborts a running `sleep 30`: the row ends cancelled', async () => {
    // Independent of the step before: a request it left open would hold the queue.
    for (const request of await server.pendingRequests(sessionId)) await server.ok('POST', `/permissions/${request.id}`, { decision: 'deny' }, 200)
    const accepted = await server.postSchedule(sessionId, [{ id: 'b2', name: 'Bash', input: { command: 'sleep 30' } }])
    await statusBecomes('b2', 'running')

    const refusal = await server.api<{ error: { code: string; message: string } }>('DELETE', `/sessions/${sessionId}`)
    expect(refusal.status).toBe(409)
    await leaveSessionView(() => page.getByTestId('nav-sessions').click())
    const row = page.locator(byTestId('session-row', { 'data-session-id': sessionId }))
    const deleteUrl = `${server.url}/sessions/${sessionId}`
    await browser.provoking({ url: (url) => url === deleteUrl }, async () => {
      await row.getByTestId('session-delete').click()
      // The first click only asks; keeping it sends nothing.
      await row.getByTestId('session-delete-cancel').click()
      await row.getByTestId('session-delete').click()
      await row.getByTestId('session-delete-confirm').click()
      await row.getByTestId('session-delete-error').waitFor({ timeout: SHOWN_WITHIN_MS })
    })
    expect(browser.provoked).toContain(`reply 409 to DELETE (${deleteUrl})`)
    const explained = await row.getByTestId('session-delete-error').textContent()
    expect(explained).toContain('409')
    expect(explained).toContain(refusal.body.error.message)

    await row.locator(`a[href="#/sessions/${sessionId}"]`).first().click()
    await statusBecomes('b2', 'running')
    await page.getByTestId('abort-turn').click()
    await statusBecomes('b2', 'cancelled')
    expect(await server.call(accepted.scheduleId, 'b2')).toMatchObject({ status: 'cancelled' })
    await expectModelContent(accepted.scheduleId, 'b2')
    expect(browser.problems).toEqual([])
  })

  it('lists every tool of the registry with its flags, timeout and budget', async () => {
    const { tools } = await server.ok<{ tools: { name: string }[] }>('GET', '/tools', undefined, 200)
    await leaveSessionView(() => page.getByTestId('nav-tools').click())
    const bash = page.locator(byTestId('tool-row', { 'data-tool-name': 'Bash' }))
    await bash.waitFor({ timeout: SHOWN_WITHIN_MS })
    const names = await page.locator(byTestId('tool-row')).evaluateAll((rows: PageElement[]) => rows.map((row) => row.getAttribute('data-tool-name') ?? ''))
    expect(names.sort()).toEqual(tools.map((tool) => tool.name).sort())
    for (const part of ['tool-flags', 'tool-timeout', 'tool-budget']) expect((await bash.getByTestId(part).textContent())?.trim()).not.toBe('')
    expect(browser.problems).toEqual([])
  })

  it('lists the servers sharing the database: on SQLite this one alone, live', async () => {
    const { self, nodes } = await server.ok<{ self: string; nodes: { id: string }[] }>('GET', '/cluster', undefined, 200)
    await page.getByTestId('nav-servers').click()
    const row = page.locator(byTestId('server-row', { 'data-server-id': self }))
    await row.waitFor({ timeout: SHOWN_WITHIN_MS })
    expect(await page.locator(byTestId('server-row')).count()).toBe(nodes.length)
    expect([await row.getAttribute('data-live'), (await row.getByTestId('server-state').textContent())?.trim()]).toEqual(['true', 'live'])
    expect(await row.textContent()).toContain('(this server)')
    expect(browser.problems).toEqual([])
  })
})
