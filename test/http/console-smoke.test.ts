/**
 * The web console in Chromium, smoke test: the page loads from the server without a token,
 * asks for the token (its first GET /me is a 401), takes it, and lists a session
 * created through the API; a wrong token is refused with a sentence and the dialog stays.
 * No console error or failed request but the 401s the test provokes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, type Browser } from '../support/chromium.js'
import { startTestServer, type TestServer } from '../support/server.js'

const TOKEN = 'console-smoke-token-7Qx'
let server: TestServer
let browser: Browser

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } }), launchChromium()])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const meUrl = (url: string): boolean => new URL(url).pathname === '/me'

describe('the web console, smoke', () => {
  it('asks for the token, refuses a wrong one, then lists a session created through the API', async () => {
    const page = browser.page
    await browser.provoking({ url: meUrl }, async () => {
      await page.goto(`${server.url}/`)
      await page.getByTestId('token-dialog').waitFor({ state: 'visible' })
      await page.getByTestId('token-input').fill(`${TOKEN}-wrong`)
      await page.getByTestId('token-submit').click()
      await expect.poll(() => page.getByTestId('token-error').textContent()).toBe('The server refused this token (401).')
    })
    expect(browser.provoked.some((problem) => problem.startsWith('reply 401 to GET'))).toBe(true)
    expect(await page.getByTestId('token-dialog').isVisible()).toBe(true)

    const created = await server.json('POST', '/sessions', { id: 'smoke-session' }, { authorization: `Bearer ${TOKEN}` })
    expect(created.status).toBe(201)
    await page.getByTestId('token-input').fill(TOKEN)
    await page.getByTestId('token-submit').click()
    const row = page.locator('[data-testid="session-row"][data-session-id="smoke-session"]')
    await row.waitFor({ state: 'visible' })
    expect(await row.getByTestId('session-status').textContent()).toBe('idle')
    expect(await page.getByTestId('token-dialog').count()).toBe(0)
    // Kept for this tab only, and never in the address bar.
    expect(await page.evaluate("sessionStorage.getItem('toolexec.token')")).toBe(TOKEN)
    expect(page.url()).not.toContain(TOKEN)
    expect(await page.title()).toBe('toolexec')
    expect(browser.problems).toEqual([])
  }, 60_000)
})
