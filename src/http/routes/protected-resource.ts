/**
 * @module GET /.well-known/oauth-protected-resource (RFC 9728): where a client learns which
 * identity provider's tokens this server takes and what scopes exist. Open to anyone; served
 * only when TOOLEXEC_JWT_ISSUER is set, and a 404 as for an unknown route otherwise, since
 * then no authorization server issues tokens for it.
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { ProtectedResourceMetadataSchema, SCOPES, type ProtectedResourceMetadata } from '../../contracts/access.js'
import { ToolexecError } from '../../contracts/errors.js'
import type { TokenVerifier } from '../../sessions/token-verifier.js'
import { PROTECTED_RESOURCE_PATH, resourceOf } from '../resource-url.js'
import { errors, inline } from '../schema.js'

export const protectedResourceRoutes: FastifyPluginCallbackTypebox<{ tokens: TokenVerifier | undefined }> = (app, { tokens }, done) => {
  app.get(
    PROTECTED_RESOURCE_PATH,
    {
      schema: {
        operationId: 'getProtectedResourceMetadata',
        summary: 'OAuth 2.0 protected resource metadata (RFC 9728): the identity provider whose JWTs this server accepts, and the scopes. 404 when the server accepts none (no TOOLEXEC_JWT_ISSUER)',
        tags: ['keys'],
        security: [],
        response: { 200: inline(ProtectedResourceMetadataSchema), ...errors(404) },
      },
    },
    (request): ProtectedResourceMetadata => {
      if (tokens === undefined) throw new ToolexecError('API_ERR_NOT_FOUND', [request.method, PROTECTED_RESOURCE_PATH])
      return { resource: resourceOf(tokens.audience, request), authorization_servers: [tokens.issuer], scopes_supported: [...SCOPES], bearer_methods_supported: ['header'] }
    },
  )
  done()
}
