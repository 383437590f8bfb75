/**
 * @module Authentication and the scope check: every route but the open ones of the scope table
 * (route-scopes.ts: /healthz, the API's description, the protected resource metadata and the
 * web console's page and assets)
 * needs a bearer when a token is set: TOOLEXEC_TOKEN (the administrator, every scope), an
 * API key (`txk_...`, its own scopes), read from the database on every request so that a
 * revoked key is refused at once on every server, or, with TOOLEXEC_JWT_ISSUER, a JWT of the
 * identity provider (its claims' scopes). Without a token nothing is checked but the
 * Host: the server is on loopback, and whoever reaches it may do everything. A browser's
 * EventSource cannot send headers, so the events route also takes ?access_token=.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ADMIN, LOCAL, type Principal } from '../contracts/access.js'
import { ToolexecError } from '../contracts/errors.js'
import type { KeyService } from '../sessions/key-service.js'
import { TokenRefused } from '../sessions/token-claims.js'
import { looksLikeJwt, TokenKeysUnavailable, type TokenVerifier } from '../sessions/token-verifier.js'
import { registerBearerChallenges } from './bearer-challenge.js'
import { isCorsPreflight } from './cors.js'
import { lacks } from './access-guard.js'
import { setPrincipal } from './principal.js'
import { metadataUrlOf } from './resource-url.js'
import { AUTHENTICATED, routeAccess, type RouteAccess } from './route-scopes.js'

/** jose fetches the keys again on the next request; a few seconds let a restarting provider come back. */
const PROVIDER_RETRY_SECONDS = 5

const LOOPBACK_NAME = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

export function registerAuth(app: FastifyInstance, token: string | undefined, keys: Pick<KeyService, 'principalOf'>, tokens?: TokenVerifier): void {
  registerBearerChallenges(app, tokens && ((request) => metadataUrlOf(tokens.audience, request)))
  if (token === undefined || token.length === 0) {
    registerLoopbackHostCheck(app)
    return
  }
  const expected = digest(token)
  const principalOfSecret = async (secret: string | undefined): Promise<Principal | undefined> => {
    if (secret === undefined) return undefined
    // Compared in constant time; a key is found by the hash of its secret, which tells nothing of the secret.
    if (timingSafeEqual(digest(secret), expected)) return ADMIN
    // A JWT is refused or accepted as one: it never falls through to another check.
    if (tokens !== undefined && looksLikeJwt(secret)) return principalOfToken(tokens, secret)
    return keys.principalOf(secret)
  }
  app.addHook('onRequest', async function authenticate(request) {
    const access = routeAccess(request.method, request.routeOptions.url)
    // A browser never sends credentials on a CORS preflight; it carries no data either.
    if (access?.scope === null || isCorsPreflight(request)) return
    const bearer = bearerOf(request)
    const query = access?.queryToken === true ? queryToken(request) : undefined
    const principal = (await principalOfSecret(bearer)) ?? (await principalOfSecret(query))
    if (principal === undefined) throw unauthorized(bearer !== undefined || query !== undefined ? new TokenRefused('the token is not known, or was revoked or expired') : undefined)
    setPrincipal(request, principal)
    assertScope(principal, access, request)
  })
}

async function principalOfToken(tokens: TokenVerifier, token: string): Promise<Principal> {
  try {
    return await tokens.principalOf(token)
  } catch (error) {
    // Not a 401: the token may be good, and a client told it is not would throw it away.
    if (error instanceof TokenKeysUnavailable) throw new ToolexecError('API_ERR_IDENTITY_PROVIDER_UNAVAILABLE', [error.message], { context: { retryAfterSeconds: PROVIDER_RETRY_SECONDS } })
    throw unauthorized(error instanceof TokenRefused ? error : new TokenRefused('the token could not be verified'))
  }
}

/** 401; `refused`, the reason a presented credential was not accepted, goes to the WWW-Authenticate header, never to the body. */
function unauthorized(refused: TokenRefused | undefined): ToolexecError {
  return new ToolexecError('API_ERR_UNAUTHORIZED', [], refused === undefined ? undefined : { cause: refused })
}

/** 403 naming the scope the route needs, when the principal lacks it. */
function assertScope(principal: Principal, access: RouteAccess | undefined, request: FastifyRequest): void {
  const scope = access?.scope
  if (scope === undefined || scope === null || scope === AUTHENTICATED || principal.scopes.has(scope)) return
  throw lacks(principal, scope, `${request.method} ${request.routeOptions.url ?? ''}`)
}

/**
 * Without a token the server listens on loopback only, but a web page whose name an attacker
 * re-points to 127.0.0.1 (DNS rebinding) reaches it as its own origin; its requests still
 * carry that name as Host.
 */
function registerLoopbackHostCheck(app: FastifyInstance): void {
  app.addHook('onRequest', function loopbackHostOnly(request, _reply, done) {
    if (!isLoopbackName(request.hostname)) return done(new ToolexecError('API_ERR_HOST_NOT_LOOPBACK', [request.hostname]))
    setPrincipal(request, LOCAL)
    done()
  })
}

/** `localhost`, `127.x.x.x` or `[::1]`, without a port. */
export function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAME.test(name)
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
