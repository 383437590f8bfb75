/**
 * @module CORS for the origins in TOOLEXEC_CORS_ORIGINS. Registered before authentication and
 * every other hook, so every reply to a listed origin carries the allow header, a 401 or a 500
 * as much as a 200: a page reads the status and the error body instead of `Failed to fetch`.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Every method a route of the API answers. */
export const CORS_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']

export const CORS_ALLOWED_HEADERS: readonly string[] = ['authorization', 'content-type', 'last-event-id', 'range']

/**
 * Response headers a page reads beyond the ones every browser exposes (Content-Type,
 * Content-Length, Cache-Control...): an artifact's range and disposition, when to try
 * again after a 429 or a 503, and why a 401 or 403 refused the token (and where the identity
 * provider's metadata is, which a browser-based MCP client reads from it).
 */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['Accept-Ranges', 'Content-Range', 'Content-Disposition', 'Content-Length', 'Retry-After', 'WWW-Authenticate']

/** A browser keeps a preflight's answer this long (seconds); Chromium caps it at 2 hours. */
export const CORS_MAX_AGE_SECONDS = 7_200

export async function registerCors(app: FastifyInstance, origins: readonly string[] | undefined): Promise<void> {
  if (origins === undefined || origins.length === 0) return
  const options: FastifyCorsOptions = {
    origin: [...origins],
    methods: [...CORS_METHODS],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
  }
  // Any other OPTIONS request gets the CORS headers and goes on to authentication and the
  // router like every request, rather than a plain-text 400 from the preflight check.
  const notPreflight: FastifyCorsOptions = { ...options, preflight: false }
  await app.register(cors, {
    delegator: (request, callback) => callback(null, isCorsPreflight(request) ? options : notPreflight),
  })
}

/** A browser's preflight: never carries credentials, nor data. */
export function isCorsPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined
}

/**
 * The headers a listed origin's reply carries, for the errors fastify answers before any hook
 * runs (a malformed URL, an over-long path parameter). Origins match exactly, as in @fastify/cors.
 */
export function corsHeadersFor(origins: readonly string[] | undefined): (request: FastifyRequest, reply: FastifyReply) => void {
  const listed: ReadonlySet<string> = new Set(origins ?? [])
  return (request, reply) => {
    if (listed.size === 0) return
    void reply.header('vary', 'Origin')
    const origin = request.headers.origin
    if (origin === undefined || !listed.has(origin)) return
    void reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '))
  }
}
