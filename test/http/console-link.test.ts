/**
 * The web console opened from a short-lived link (`consolePath` of POST /sessions/{id}/links),
 * in Chromium: it takes the token from the address without asking, drops it from the address,
 * shows the session's pending approval and decides it as the link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'
import type { CreatedLink } from '../../src/contracts/links.js'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { until } from '../support/until.js'

const TOKEN = 'console-link-token-5Rk'
const ADMIN = { authorization: `Bearer ${TOKEN}` }
let server: TestServer
let browser: Browser

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } }), launchChromium()])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the web console from a link', () => {
  it('opens the session with the link token, out of the address, and decides its approval as the link', async () => {
    await server.json('POST', '/sessions', { id: 'linked', permissionMode: 'default' }, ADMIN)
    await server.json('POST', '/schedules', { sessionId: 'linked', calls: [{ id: 'e1', name: 'Edit', input: { file_path: 'notes.txt' } }] }, ADMIN)
    const pending = async (): Promise<PermissionRequestRecord | undefined> =>
      (await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?sessionId=linked', undefined, ADMIN)).body.requests[0]
    const request = await until(pending, 'the Edit to ask')
    const created = await server.json<CreatedLink>('POST', '/sessions/linked/links', { purpose: 'decide' }, ADMIN)
    expect(created.status).toBe(201)

    const page = browser.page
    await page.goto(`${server.url}${created.body.consolePath}`)
    await page.getByTestId('approval-dialog').waitFor({ state: 'visible' })
    expect(page.url()).toBe(`${server.url}/#/sessions/linked`)
    expect(await page.evaluate("sessionStorage.getItem('toolexec.token')")).toBe(created.body.secret)
    await page.getByTestId('approve-once').click()
    await expect.poll(async () => (await server.runtime.store.approvals.get(request.id))?.deciderId).toBe(created.body.link.id)
    expect(await server.runtime.store.approvals.get(request.id)).toMatchObject({ status: 'allow', decidedBy: 'client' })
    expect(browser.problems).toEqual([])
  }, 60_000)
})
