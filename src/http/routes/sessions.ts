/** @module Session routes: create, list, read, label, delete, abort, history. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { CreateSessionBodySchema, HistoryEntrySchema, SessionListQuerySchema, SessionListSchema, SessionSchema, UpdateSessionBodySchema } from '../../contracts/api.js'
import { actorOf } from '../../contracts/audit.js'
import { ToolexecError } from '../../contracts/errors.js'
import type { Runtime } from '../../sessions/runtime.js'
import { principalOf } from '../principal.js'
import { refuseNewWorkWhenFull } from '../storage-guard.js'
import { errors, inline, SessionIdParams } from '../schema.js'

export const sessionRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.post(
    '/sessions',
    {
      schema: {
        operationId: 'createSession',
        summary: 'Create a session',
        tags: ['sessions'],
        body: inline(CreateSessionBodySchema),
        response: { 201: inline(SessionSchema), ...errors(400, 409, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    async (request, reply) => reply.code(201).send(await runtime.sessions.create(request.body)),
  )

  app.get(
    '/sessions',
    {
      schema: {
        operationId: 'listSessions',
        summary: "Sessions, newest first, a page at a time: pass a reply's `next` as `before` for the next page",
        tags: ['sessions'],
        querystring: inline(SessionListQuerySchema),
        response: { 200: inline(SessionListSchema), ...errors(400, 404) },
      },
    },
    (request) => {
      const principal = principalOf(request)
      return runtime.sessions.list(request.query, (session) => runtime.access.sees(principal, session))
    },
  )

  app.get(
    '/sessions/:id',
    {
      schema: {
        operationId: 'getSession',
        summary: 'Read a session with its status and counts',
        tags: ['sessions'],
        params: SessionIdParams,
        response: { 200: inline(SessionSchema), ...errors(404) },
      },
    },
    async (request) => {
      const view = await runtime.sessions.view(request.params.id)
      if (view === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [request.params.id, ''])
      return view
    },
  )

  app.patch(
    '/sessions/:id',
    {
      schema: {
        operationId: 'updateSession',
        summary: "Change a session's label: the name the console shows for it (without one, its workspace's folder and start time)",
        tags: ['sessions'],
        params: SessionIdParams,
        body: inline(UpdateSessionBodySchema),
        response: { 200: inline(SessionSchema), ...errors(400, 404, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    (request) => runtime.sessions.update(request.params.id, request.body),
  )

  app.delete(
    '/sessions/:id',
    {
      schema: {
        operationId: 'deleteSession',
        summary: 'Delete a session with its records, events, approvals and artifact files; its event streams end. Refused while it has work going on: abort it first',
        tags: ['sessions'],
        params: SessionIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 409) },
      },
    },
    async (request, reply) => {
      await runtime.sessions.delete(request.params.id, actorOf(principalOf(request)))
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/sessions/:id/abort',
    {
      schema: {
        operationId: 'abortSession',
        summary: 'Abort the running turn: running calls end cancelled, pending approvals resolve as abort, queued and open schedules end cancelled',
        tags: ['sessions'],
        params: SessionIdParams,
        response: { 200: Type.Object({ sessionId: Type.String(), aborted: Type.Boolean() }), ...errors(404) },
      },
    },
    (request) => runtime.schedules.abortTurn(request.params.id),
  )

  app.get(
    '/sessions/:id/history',
    {
      schema: {
        operationId: 'getHistory',
        summary: 'Every stored tool record in order, with the exact modelContent the model received',
        tags: ['sessions'],
        params: SessionIdParams,
        response: { 200: Type.Object({ sessionId: Type.String(), entries: Type.Array(inline(HistoryEntrySchema)) }), ...errors(404) },
      },
    },
    async (request) => ({ sessionId: request.params.id, entries: await runtime.sessions.history(request.params.id) }),
  )
  done()
}
