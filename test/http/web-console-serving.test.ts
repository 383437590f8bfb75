/**
 * How the server serves the web console: `GET /` is the page and /console/ its assets, both
 * without a token, the page with a Content-Security-Policy that allows its own origin only
 * and `no-cache`, the assets (named by content hash) cached for good; the API still needs the
 * token. The committed web/dist is exactly what a fresh build of web/src writes.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildWeb, WEB_DIST } from '../../scripts/build-web.js'
import { CONSOLE_CSP } from '../../src/http/console.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const TOKEN = 'web-console-token'
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
})

afterAll(async () => {
  await server?.close()
})

/** The asset paths the page loads. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((match) => match[1] ?? '')
}

describe('the web console is served', () => {
  it('GET / is the page, without a token, with a CSP of its own origin only and no-cache', async () => {
    const response = await fetch(`${server.url}/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    const csp = response.headers.get('content-security-policy') ?? ''
    expect(csp).toBe(CONSOLE_CSP)
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/)
    const html = await response.text()
    expect(html).toBe(readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8'))
    // Nothing from elsewhere: no CDN, no font, no script of another origin.
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//)
    expect(assetsOf(html)).toHaveLength(2)
  })

  it('its assets answer under /console/ without a token, with their media type, cached for good', async () => {
    const html = await (await fetch(`${server.url}/`)).text()
    const types: Record<string, string> = { '.js': 'application/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' }
    for (const asset of assetsOf(html)) {
      const response = await fetch(`${server.url}${asset}`)
      expect(response.status, asset).toBe(200)
      expect(response.headers.get('content-type'), asset).toBe(types[path.extname(asset)])
      expect(response.headers.get('cache-control'), asset).toBe('public, max-age=31536000, immutable')
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(path.join(WEB_DIST, path.basename(asset)))), asset).toBe(true)
    }
  })

  it('an unknown asset is a 404 and nothing outside web/dist is reachable', async () => {
    const missing = await server.json<{ error: { code: string } }>('GET', '/console/nothing-here.js')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('API_ERR_NOT_FOUND')
    for (const route of ['/console/%2e%2e/package.json', '/console/..%2f..%2fpackage.json', '/console/%2e%2e/%2e%2e/package.json']) {
      const response = await fetch(`${server.url}${route}`)
      expect([400, 401, 403, 404], route).toContain(response.status)
      expect(await response.text(), route).not.toContain('"name": "toolexec"')
    }
  })

  it('the API still needs the token', async () => {
    expect((await server.json('GET', '/sessions')).status).toBe(401)
    expect((await server.json('GET', '/tools')).status).toBe(401)
    expect((await server.json('GET', '/sessions', undefined, { authorization: `Bearer ${TOKEN}` })).status).toBe(200)
  })
})

describe('the committed web/dist', () => {
  it('is exactly what a fresh build of web/src writes', async () => {
    const fresh = tempDirSync('web-dist')
    const written = await buildWeb(fresh)
    expect(readdirSync(WEB_DIST).sort()).toEqual(written)
    for (const file of written) {
      expect(readFileSync(path.join(WEB_DIST, file)).equals(readFileSync(path.join(fresh, file))), `web/dist/${file} differs from a fresh build: run npm run build:web`).toBe(true)
    }
  }, 60_000)
})
