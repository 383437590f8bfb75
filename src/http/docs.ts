/**
 * @module The API reference at /docs (swagger-ui), served without a token like the console
 * and held to the same rules: its page, scripts and styles come from this origin only, it
 * talks to this origin only, and no other page may frame it (a framed reference with the
 * token typed into its Authorize dialog is a clickjacking target).
 */
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

export const DOCS_PREFIX = '/docs'

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // The one inline style swagger-ui has: the <style> of the Swagger logo in its top bar
  // (swagger-ui-standalone-preset.js), allowed by its hash, so nothing else inline is.
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  // "Try it out" calls this server; the logo is a data: URL.
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const DOCS_HEADERS = {
  'content-security-policy': DOCS_CSP,
  // For browsers that predate frame-ancestors.
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** swagger-ui in a scope of its own, so that the headers reach its static files too and nothing else. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(async function docsScope(scope) {
    scope.addHook('onRequest', function docsHeaders(_request, reply, done) {
      void reply.headers(DOCS_HEADERS)
      done()
    })
    await scope.register(swaggerUi, { routePrefix: DOCS_PREFIX })
  })
}
