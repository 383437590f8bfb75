/**
 * The web console knows who its token is (GET /me), in Chromium: an observer key minted through
 * the API sees its name and role and a pending Write with no Allow, Deny, Abort or Delete, in
 * the session and in the header's queue; the same tab, switched to an approver key, allows the
 * Write, the call runs, and the row says who allowed it.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedKey } from '../../src/contracts/api-keys.js'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'
import { createWriteTool } from '../../src/tools/write/index.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { until } from '../support/until.js'

const TOKEN = 'console-identity-token-8Wm'
const ADMIN = { authorization: `Bearer ${TOKEN}` }
const SHOWN_WITHIN_MS = 15_000
const workspace = tempDirSync('console-identity')
let server: TestServer
let browser: Browser

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN }, tools: [createWriteTool()], workspace }), launchChromium()])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

async function mint(name: string, role: string): Promise<CreatedKey> {
  const reply = await server.json<CreatedKey>('POST', '/keys', { name, role }, ADMIN)
  expect(reply.status).toBe(201)
  return reply.body
}

const meUrl = (url: string): boolean => new URL(url).pathname === '/me'

/** Through the token dialog, which the console shows on its first 401 and after "Change token". */
async function logIn(secret: string): Promise<void> {
  const page = browser.page
  await page.getByTestId('token-dialog').waitFor({ state: 'visible', timeout: SHOWN_WITHIN_MS })
  await page.getByTestId('token-input').fill(secret)
  await page.getByTestId('token-submit').click()
  await page.getByTestId('token-dialog').waitFor({ state: 'detached', timeout: SHOWN_WITHIN_MS })
}

/** Leaving the session view closes its event stream: that aborted request is the step's doing. */
async function leaveSessionView(step: () => Promise<void>): Promise<void> {
  const events = (url: string): boolean => url.startsWith(`${server.url}/sessions/reviewed/events`)
  await browser.provoking({ url: events }, async () => {
    const closed = browser.page.waitForEvent('requestfailed', { predicate: (request) => events(request.url()), timeout: SHOWN_WITHIN_MS })
    await step()
    await closed
  })
}

describe('the web console knows who its token is', () => {
  it('shows an observer no decision, abort or delete control, and lets an approver allow a pending Write, naming who did', async () => {
    const [observer, approver] = [await mint('Olga Observer', 'observer'), await mint('Abe Approver', 'approver')]
    expect((await server.json('POST', '/sessions', { id: 'reviewed', permissionMode: 'default' }, ADMIN)).status).toBe(201)
    const write = { id: 'w1', name: 'Write', input: { file_path: 'notes.txt', content: 'approved by a person\n' } }
    expect((await server.json('POST', '/schedules', { sessionId: 'reviewed', calls: [write] }, ADMIN)).status).toBe(202)
    const pending = async (): Promise<PermissionRequestRecord | undefined> =>
      (await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?sessionId=reviewed', undefined, ADMIN)).body.requests[0]
    const request = await until(pending, 'the Write to ask')

    const page = browser.page
    await browser.provoking({ url: meUrl }, async () => {
      await page.goto(`${server.url}/#/sessions/reviewed`)
      await logIn(observer.secret)
    })
    expect(browser.provoked).toContain(`reply 401 to GET (${server.url}/me)`)
    const dialog = page.locator(`[data-testid="approval-dialog"][data-request-id="${request.id}"]`)
    await dialog.waitFor({ state: 'visible', timeout: SHOWN_WITHIN_MS })
    expect(await page.getByTestId('caller-name').textContent()).toBe('Olga Observer')
    expect(await page.getByTestId('caller-role').textContent()).toBe('observer')
    expect(await dialog.getByTestId('approval-watch-only').isVisible()).toBe(true)
    for (const control of ['approve-once', 'approve-session', 'approve-project', 'deny', 'deny-message', 'abort-turn']) expect(await page.getByTestId(control).count(), control).toBe(0)
    await leaveSessionView(() => page.getByTestId('nav-sessions').click())
    await page.locator('[data-testid="session-row"][data-session-id="reviewed"]').waitFor({ state: 'visible', timeout: SHOWN_WITHIN_MS })
    for (const control of ['session-delete', 'new-session', 'nav-rules', 'nav-servers']) expect(await page.getByTestId(control).count(), control).toBe(0)
    // The header's queue shows the observer what waits, with no decision; its keys decide nothing.
    await page.getByRole('button', { name: '1 pending approval', exact: true }).click()
    await page.getByTestId('queue-dialog').getByTestId('approval-watch-only').waitFor({ state: 'visible', timeout: SHOWN_WITHIN_MS })
    await page.keyboard.press('1')
    expect(await page.getByTestId('queue-dialog').getByTestId('approve-once').count()).toBe(0)
    await page.getByTestId('queue-close').click()
    expect((await pending())?.status).toBe('pending')

    await page.getByTestId('change-token').click()
    await logIn(approver.secret)
    expect(await page.getByTestId('caller-name').textContent()).toBe('Abe Approver')
    expect(await page.getByTestId('caller-role').textContent()).toBe('approver')
    await page.goto(`${server.url}/#/sessions/reviewed`)
    await dialog.getByTestId('approve-once').click()
    const row = page.locator('[data-testid="call-row"][data-call-id="w1"]')
    await expect.poll(() => row.getAttribute('data-status'), { timeout: SHOWN_WITHIN_MS }).toBe('succeeded')
    expect(await row.getByTestId('call-decision').textContent()).toBe('Permission: allowed by Abe Approver (once)')
    expect(await page.getByTestId('abort-turn').count()).toBe(0)
    expect(await server.runtime.store.approvals.get(request.id)).toMatchObject({ status: 'allow', decidedBy: 'client', deciderId: approver.key.id, deciderName: 'Abe Approver' })
    expect(readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('approved by a person\n')
    expect(browser.problems).toEqual([])
  }, 60_000)
})
