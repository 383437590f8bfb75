/**
 * @module The WWW-Authenticate header of a refusal (RFC 6750 §3), as the MCP authorization
 * specification asks of a resource server: every 401 of authentication carries it, with
 * `error="invalid_token"` when a credential was presented and refused, and the URL of the
 * protected resource metadata (RFC 9728) when identity-provider tokens are accepted; a 403
 * for a missing scope says `insufficient_scope` and names the scope. The body stays the
 * catalogue's `{error:{code,message}}`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { hasCode } from '../contracts/errors.js'
import { TokenRefused } from '../sessions/token-claims.js'

export const REALM = 'toolexec'

/** Registers the header; `metadataUrlOf` is given when identity-provider tokens are accepted. */
export function registerBearerChallenges(app: FastifyInstance, metadataUrlOf: ((request: FastifyRequest) => string) | undefined): void {
  app.addHook('onError', function bearerChallenge(request, reply, error, done) {
    const challenge = challengeOf(error, metadataUrlOf?.(request))
    if (challenge !== undefined) void reply.header('www-authenticate', challenge)
    done()
  })
}

function challengeOf(error: unknown, resourceMetadata: string | undefined): string | undefined {
  if (hasCode(error, 'API_ERR_UNAUTHORIZED')) {
    const refused = error.cause instanceof TokenRefused ? error.cause : undefined
    return bearer({ resource_metadata: resourceMetadata, error: refused && 'invalid_token', error_description: refused?.message })
  }
  const scope = hasCode(error, 'API_ERR_FORBIDDEN') ? error.context?.scope : undefined
  if (typeof scope !== 'string') return undefined
  return bearer({ resource_metadata: resourceMetadata, error: 'insufficient_scope', scope })
}

function bearer(params: Readonly<Record<string, string | undefined>>): string {
  const given = Object.entries({ realm: REALM, ...params }).filter((entry): entry is [string, string] => entry[1] !== undefined)
  return `Bearer ${given.map(([name, value]) => `${name}="${quoted(value)}"`).join(', ')}`
}

/** A quoted-string (RFC 9110): a backslash or a double quote is escaped, anything outside printable ASCII dropped. */
function quoted(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '\\$&')
}
