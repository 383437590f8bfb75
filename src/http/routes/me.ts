/** @module Who the credential is: GET /me, open to every authenticated principal, so that a client shows only what it may do. */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { SCOPES, type Principal } from '../../contracts/access.js'
import { CallerSchema, type Caller } from '../../contracts/caller.js'
import { principalOf } from '../principal.js'
import { inline } from '../schema.js'

/** The principal without its credential, its scopes in the catalogue's order. */
export function callerOf(principal: Principal): Caller {
  const { id, name, kind, limits, expiresAt } = principal
  const scopes = SCOPES.filter((scope) => principal.scopes.has(scope))
  return { id, name, kind, role: principal.role ?? null, scopes, limits: { sessions: limits.sessions && [...limits.sessions], workspaces: limits.workspaces && [...limits.workspaces] }, expiresAt }
}

export const meRoutes: FastifyPluginCallbackTypebox = (app, _options, done) => {
  app.get(
    '/me',
    {
      schema: {
        operationId: 'whoAmI',
        summary: 'Who the credential of the request is: its name, role, scopes, limits and expiry, never its secret. Any valid credential may ask',
        tags: ['keys'],
        response: { 200: inline(CallerSchema) },
      },
    },
    (request) => callerOf(principalOf(request)),
  )
  done()
}
