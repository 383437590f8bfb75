/**
 * @module Bearer-token authentication: every route but /healthz, the API's description
 * (/openapi.json, /docs) and the web console's page and assets (/, /console/) when a token is set. A browser's EventSource cannot send headers, so
 * the events route also takes ?access_token=.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ToolexecError } from '../contracts/errors.js'
import { CONSOLE_PREFIX } from './console.js'
import { isCorsPreflight } from './cors.js'

/** `/` is the web console's page: it holds no data and asks for the token itself, like its assets. */
const OPEN_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/openapi.json', '/'])
/** The reference pages (swagger UI, its assets and the document it shows) hold no data; its Authorize button sets the bearer. */
const DOCS_PREFIX = '/docs'
const LOOPBACK_NAME = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i
const EVENTS_ROUTE = '/sessions/:id/events'

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

export function registerAuth(app: FastifyInstance, token: string | undefined): void {
  if (token === undefined || token.length === 0) {
    registerLoopbackHostCheck(app)
    return
  }
  const expected = digest(token)
  const matches = (candidate: string | undefined): boolean => candidate !== undefined && timingSafeEqual(digest(candidate), expected)
  const admitted = (request: FastifyRequest): boolean =>
    isOpenRoute(request.routeOptions.url) ||
    // A browser never sends credentials on a CORS preflight; it carries no data either.
    isCorsPreflight(request) ||
    matches(bearerOf(request)) ||
    (request.routeOptions.url === EVENTS_ROUTE && matches(queryToken(request)))
  app.addHook('onRequest', function authenticate(request, _reply, done) {
    done(admitted(request) ? undefined : new ToolexecError('API_ERR_UNAUTHORIZED'))
  })
}

/**
 * Without a token the server listens on loopback only, but a web page whose name an attacker
 * re-points to 127.0.0.1 (DNS rebinding) reaches it as its own origin; its requests still
 * carry that name as Host.
 */
function registerLoopbackHostCheck(app: FastifyInstance): void {
  app.addHook('onRequest', function loopbackHostOnly(request, _reply, done) {
    done(isLoopbackName(request.hostname) ? undefined : new ToolexecError('API_ERR_HOST_NOT_LOOPBACK', [request.hostname]))
  })
}

/** `localhost`, `127.x.x.x` or `[::1]`, without a port. */
export function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAME.test(name)
}

function isOpenRoute(route: string | undefined): boolean {
  if (route === undefined) return false
  return OPEN_ROUTES.has(route) || route === DOCS_PREFIX || route.startsWith(`${DOCS_PREFIX}/`) || route.startsWith(CONSOLE_PREFIX)
}

// The scheme is case-insensitive (RFC 9110): `bearer x` is as good as `Bearer x`.
const BEARER = /^bearer +(\S+) *$/i

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  return typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined
}

function queryToken(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined
  const value = query?.access_token
  return typeof value === 'string' ? value : undefined
}

const QUERY_PARAM = /([?&])([^=&]*)=[^&]*/g

/** Log lines never carry the token given in the query string. */
export function redactUrl(url: string): string {
  return url.replace(QUERY_PARAM, (param: string, separator: string, name: string) => (decodedName(name) === 'access_token' ? `${separator}${name}=[redacted]` : param))
}

// The query parser decodes names, so `access%5Ftoken=` authenticates like `access_token=`.
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '))
  } catch {
    return name
  }
}
