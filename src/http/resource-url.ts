/**
 * @module Where this server is, as a protected resource (RFC 9728): its identifier is the
 * audience its tokens name when that is a URL (the MCP authorization specification has
 * clients ask tokens for the server's URL, RFC 8707); otherwise the origin the request
 * reached. Its metadata is served at the root of that origin.
 */
import type { FastifyRequest } from 'fastify'

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource'

export function resourceOf(audience: string, request: FastifyRequest): string {
  const url = URL.canParse(audience) ? new URL(audience) : undefined
  if (url?.protocol === 'https:' || url?.protocol === 'http:') return audience
  return `${request.protocol}://${request.host}`
}

/** The absolute URL of the protected resource metadata, as a 401's WWW-Authenticate names it. */
export function metadataUrlOf(audience: string, request: FastifyRequest): string {
  return new URL(PROTECTED_RESOURCE_PATH, resourceOf(audience, request)).href
}
