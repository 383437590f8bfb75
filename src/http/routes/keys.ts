/** @module API keys: mint one (its secret shown once), list them without secrets, revoke one at once. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { ApiKeyListSchema, CreatedKeySchema, CreateKeyBodySchema } from '../../contracts/api-keys.js'
import type { Runtime } from '../../sessions/runtime.js'
import { principalOf } from '../principal.js'
import { refuseNewWorkWhenFull } from '../storage-guard.js'
import { errors, inline } from '../schema.js'

export const keyRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.post(
    '/keys',
    {
      schema: {
        operationId: 'createKey',
        summary: 'Mint an API key: its secret is in this reply only, and never has more than the key minting it',
        description: [
          'The key gets a `role` or a list of `scopes`, and may be limited to `sessions` and/or to `workspaces` under given paths (both: the sessions that pass both).',
          'A scope, a session, a workspace or an expiry the minting key does not have is a 403 `API_ERR_KEY_TOO_WIDE`; a side of its limits the new key does not name,',
          'and its expiry when it names none, are the minting key’s. The secret (`txk_...`) is sent as `Authorization: Bearer`; it is stored only as its SHA-256.',
        ].join(' '),
        tags: ['keys'],
        body: inline(CreateKeyBodySchema),
        response: { 201: inline(CreatedKeySchema), ...errors(400, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    async (request, reply) => reply.code(201).send(await runtime.keys.mint(principalOf(request), request.body)),
  )

  app.get(
    '/keys',
    {
      schema: {
        operationId: 'listKeys',
        summary: 'The keys the caller could have minted (every key for TOOLEXEC_TOKEN), oldest first, revoked ones too; never a secret',
        tags: ['keys'],
        response: { 200: inline(ApiKeyListSchema) },
      },
    },
    async (request) => ({ keys: await runtime.keys.list(principalOf(request)) }),
  )

  app.delete(
    '/keys/:id',
    {
      schema: {
        operationId: 'revokeKey',
        summary: 'Revoke a key: the next request with it is refused, on every server of a cluster. A key the caller could not have minted is a 404',
        tags: ['keys'],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 204: Type.Null({ description: 'Revoked' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      await runtime.keys.revoke(principalOf(request), request.params.id)
      return reply.code(204).send(null)
    },
  )
  done()
}
