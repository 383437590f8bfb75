/** @module The session's SSE stream: replay after Last-Event-ID or ?after=N, then live events. */
import type {} from '@fastify/sse'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ToolexecError } from '../../contracts/errors.js'
import type { Runtime } from '../../sessions/runtime.js'
import { RETRY_FRAME, SessionStream, type StreamLimits } from '../session-stream.js'
import { errors, SessionIdParams } from '../schema.js'

const EVENT_STREAM_DESCRIPTION = [
  'Each event is one frame: `id:` the session\'s sequence number (1, 2, 3, ... with no gaps), `event:` its type,',
  '`data:` one JSON line `{type, sessionId, seq, at, ...}`. Stored events after the resume point are replayed, then live ones follow.',
  'A resume point past the last stored event is a 400 (no such id was sent by this session: it was deleted and created again, say).',
  'A heartbeat comment comes at least every 15 s.',
].join(' ')

const EVENT_STREAM = {
  description: 'The event stream (text/event-stream)',
  content: { 'text/event-stream': { schema: Type.String({ description: 'Server-Sent Events frames' }) } },
}

export const eventRoutes: FastifyPluginAsyncTypebox<{ runtime: Runtime; limits?: StreamLimits | undefined }> = async (app, { runtime, limits }) => {
  app.get(
    '/sessions/:id/events',
    {
      sse: 'only',
      schema: {
        operationId: 'streamEvents',
        summary: "The session's events as Server-Sent Events: id is the session's sequence number; resume with Last-Event-ID or ?after=N",
        description: EVENT_STREAM_DESCRIPTION,
        tags: ['events'],
        security: [{ bearer: [] }, { accessToken: [] }],
        params: SessionIdParams,
        querystring: Type.Object(
          {
            after: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
            access_token: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })) }),
        response: { 200: EVENT_STREAM, ...errors(400, 401, 404) },
      },
      // The session check runs before the SSE wrapper commits the response as a stream.
      preHandler: async (request) => {
        const sessionId = request.params.id
        if (runtime.ctx.store.getSession(sessionId) === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [sessionId])
        // Every id sent is stored first, so an id past the last one was never sent by this session
        // (one deleted and created again starts over at 1); resuming from it would skip events unseen.
        const after = resumePoint(request.headers['last-event-id'], request.query.after)
        const last = runtime.ctx.store.lastSeq(sessionId)
        if (after > last) {
          throw new ToolexecError('API_ERR_VALIDATION', [`Event ${after} is past the last event of session ${sessionId} (${last}); resume from an id this session sent, or from 0`])
        }
      },
    },
    async (request, reply) => {
      const after = resumePoint(request.headers['last-event-id'], request.query.after)
      reply.sse.keepAlive()
      reply.sse.sendHeaders()
      // The first write sends the headers with it; without one a caught-up client would wait for a heartbeat.
      reply.raw.write(RETRY_FRAME)
      const stream = new SessionStream(reply.raw, after, limits)
      reply.sse.onClose(() => stream.close())
      await stream.run(request.params.id, runtime.ctx.bus, runtime.ctx.store)
    },
  )
}

/** The last id the client has: Last-Event-ID wins over ?after=. */
function resumePoint(lastEventId: string | undefined, after: string | undefined): number {
  return Number(lastEventId ?? after ?? 0)
}
