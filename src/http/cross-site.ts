/**
 * @module Requests from web pages on other sites, refused when the server has no token. A page
 * anywhere can make the browser send a request to 127.0.0.1 without asking first (a form, an
 * `<img>`, `fetch(..., {mode: 'no-cors'})`): it cannot read the reply, but the request runs
 * (an abort, a delete). The browser says where it comes from: `Origin` on every request but a
 * plain GET or HEAD, and `Sec-Fetch-Site` on every request of a recent one. A foreign origin
 * is 403 on every method (a GET from one can never be read without CORS, and an event stream
 * held open for nothing costs the server); so is a request with no Origin that the browser
 * marks `Sec-Fetch-Site: cross-site`, unless it is a person following a link (a GET or HEAD
 * navigation: the console's page, the reference). Clients that are no browser send neither
 * header and are answered as before. With a token the token is the guard.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ToolexecError } from '../contracts/errors.js'
import { isLoopbackName } from './auth.js'

const WEB_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:'])
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD'])

/** `http(s)://` a loopback name `[:port]`, exactly as a browser writes an origin (no path, no user). */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  return WEB_SCHEMES.has(url.protocol) && url.origin === origin.toLowerCase() && isLoopbackName(url.hostname)
}

/** What a refused request is called in its error: its Origin, or its Sec-Fetch-Site when it has none; undefined when it is answered. */
function refusedAs(request: FastifyRequest, listed: ReadonlySet<string>): string | undefined {
  const origin = request.headers.origin
  if (origin !== undefined) return listed.has(origin) || isLoopbackOrigin(origin) ? undefined : `Origin ${origin}`
  if (request.headers['sec-fetch-site'] !== 'cross-site') return undefined
  const followedLink = READ_METHODS.has(request.method) && request.headers['sec-fetch-mode'] === 'navigate'
  return followedLink ? undefined : 'A request from another site (Sec-Fetch-Site: cross-site)'
}

export function registerCrossSiteCheck(app: FastifyInstance, token: string | undefined, corsOrigins: readonly string[] | undefined): void {
  if (token !== undefined && token.length > 0) return
  const listed: ReadonlySet<string> = new Set(corsOrigins ?? [])
  app.addHook('onRequest', function sameSiteOnly(request, _reply, done) {
    const refused = refusedAs(request, listed)
    done(refused === undefined ? undefined : new ToolexecError('API_ERR_ORIGIN_NOT_ALLOWED', [refused]))
  })
}
