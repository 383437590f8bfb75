/** @module Short-lived links to one session: mint one for a purpose (its token shown once), revoke one at once. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { CreatedLinkSchema, CreateLinkBodySchema } from '../../contracts/links.js'
import type { Runtime } from '../../sessions/runtime.js'
import { principalOf } from '../principal.js'
import { refuseNewWorkWhenFull } from '../storage-guard.js'
import { errors, inline } from '../schema.js'

const SessionParam = Type.String({ minLength: 1, maxLength: 200 })

export const linkRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.post(
    '/sessions/:id/links',
    {
      schema: {
        operationId: 'createSessionLink',
        summary: 'Mint a short-lived token for this session and one purpose (watch, or watch and decide), for a console link sent to a phone',
        description: [
          'The token works for this session only, with the scopes of its purpose (`watch`: sessions:read and events:read; `decide`: those and approvals:decide),',
          'until it expires (15 min by default, at most 24 h, never past the minting key’s expiry) or is revoked. A purpose whose scopes the minting key lacks is',
          'a 403 `API_ERR_KEY_TOO_WIDE`. The token is in this reply only; `consolePath` opens the console on the session with it.',
        ].join(' '),
        tags: ['keys'],
        params: Type.Object({ id: SessionParam }),
        body: inline(CreateLinkBodySchema),
        response: { 201: inline(CreatedLinkSchema), ...errors(400, 404, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    async (request, reply) => {
      await runtime.sessions.get(request.params.id)
      return reply.code(201).send(await runtime.links.mint(principalOf(request), request.params.id, request.body))
    },
  )

  app.delete(
    '/sessions/:id/links/:linkId',
    {
      schema: {
        operationId: 'revokeSessionLink',
        summary: 'Revoke a link: the next request with its token is refused, on every server. Only its minter (or the administrator) may; any other link is a 404',
        tags: ['keys'],
        params: Type.Object({ id: SessionParam, linkId: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 204: Type.Null({ description: 'Revoked' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      await runtime.sessions.get(request.params.id)
      await runtime.links.revoke(principalOf(request), request.params.id, request.params.linkId)
      return reply.code(204).send(null)
    },
  )
  done()
}
