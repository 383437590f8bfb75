/** @module Approval routes: answer a request (first answer wins), list pending ones. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { PermissionAnswerBodySchema, PermissionRequestRecordSchema, ProjectRuleSchema } from '../../contracts/api.js'
import { actorOf } from '../../contracts/audit.js'
import type { Runtime } from '../../sessions/runtime.js'
import { principalOf } from '../principal.js'
import { refuseNewWorkWhenFull } from '../storage-guard.js'
import { errors, inline } from '../schema.js'

export const permissionRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.post(
    '/permissions/:id',
    {
      schema: {
        operationId: 'answerPermission',
        summary: 'Decide a permission request, once: a second decision is a 409, as is one for another input or on a closed request',
        tags: ['permissions'],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        body: inline(PermissionAnswerBodySchema),
        response: { 200: inline(PermissionRequestRecordSchema), ...errors(400, 403, 404, 409, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    (request) => runtime.sessions.answerPermission(request.params.id, request.body, principalOf(request)),
  )

  app.get(
    '/permissions',
    {
      schema: {
        operationId: 'listPermissions',
        summary: 'Pending permission requests across sessions, or of one session',
        tags: ['permissions'],
        querystring: Type.Object(
          {
            sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            status: Type.Optional(Type.Literal('pending')),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ requests: Type.Array(inline(PermissionRequestRecordSchema)) }), ...errors(400) },
      },
    },
    async (request) => {
      const requests = await runtime.sessions.pendingPermissions(request.query.sessionId)
      return { requests: await runtime.access.filter(principalOf(request), requests, (pending) => pending.sessionId) }
    },
  )

  app.get(
    '/permissions/rules',
    {
      schema: {
        operationId: 'listProjectRules',
        summary: 'Allow rules granted per workspace by approvals with scope "project"',
        tags: ['permissions'],
        response: { 200: Type.Object({ rules: Type.Array(inline(ProjectRuleSchema)) }) },
      },
    },
    async (request) => ({ rules: await runtime.access.rules(principalOf(request), await runtime.projectRules.list()) }),
  )

  app.delete(
    '/permissions/rules/:id',
    {
      schema: {
        operationId: 'deleteProjectRule',
        summary: 'Remove a project grant; later requests it covered ask again',
        tags: ['permissions'],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 204: Type.Null(), ...errors(404) },
      },
    },
    async (request, reply) => {
      const by = principalOf(request)
      await runtime.projectRules.delete(request.params.id, actorOf(by), (rules) => runtime.access.rules(by, rules))
      return reply.code(204).send(null)
    },
  )
  done()
}
