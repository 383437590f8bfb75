/**
 * @module The web console: `GET /` is its page, its built assets live under /console/. Both
 * answer without a token (the page holds no data and asks for the token itself); the page
 * may load nothing but its own origin's scripts, styles and API.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ToolexecError } from '../contracts/errors.js'

export const CONSOLE_PREFIX = '/console/'
/** src/http or dist/http -> the package root's web/dist: the same path from the sources and from the build. */
export const CONSOLE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist')

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  // Artifact images are fetched with the bearer and shown from blob: URLs.
  "img-src 'self' blob: data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  // For browsers that predate frame-ancestors.
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The page names its assets by content hash: a fresh copy of the page is all a new build needs.
  'cache-control': 'no-cache',
}
// Asset names carry their content's hash: one name, one content, forever.
const ASSET_CACHE = 'public, max-age=31536000, immutable'

function readPage(): string | undefined {
  try {
    return readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8')
  } catch {
    return undefined
  }
}

export async function registerConsole(app: FastifyInstance): Promise<void> {
  const page = readPage()
  if (page === undefined) app.log.warn({ dir: CONSOLE_DIST }, 'the web console is not built: GET / answers 404 (npm run build:web)')
  app.get('/', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    if (page === undefined) throw new ToolexecError('API_ERR_NOT_FOUND', [request.method, '/'])
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page)
  })
  await app.register(fastifyStatic, {
    root: CONSOLE_DIST,
    prefix: CONSOLE_PREFIX,
    decorateReply: false,
    index: false,
    cacheControl: false,
    setHeaders: (reply) => {
      void reply.header('cache-control', ASSET_CACHE).header('x-content-type-options', 'nosniff').header('content-security-policy', CONSOLE_CSP)
    },
  })
}
