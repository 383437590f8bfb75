/** @module The session's SSE stream: replay after Last-Event-ID or ?after=N, then live events. */
import type {} from '@fastify/sse'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { ToolexecError } from '../../contracts/errors.js'
import type { Runtime } from '../../sessions/runtime.js'
import { RECONNECT_DELAY_MS, RETRY_FRAME, SessionStream, type StreamLimits } from '../session-stream.js'
import { SessionEventSchema } from '../../contracts/session-events.js'
import { errors, inline, SessionIdParams } from '../schema.js'
import { errorBody } from '../error-status.js'

const EVENT_LIST = SessionEventSchema.anyOf.map((event) => `- \`${event.properties.type.const}\`: ${event.description ?? ''}`)

const EVENT_STREAM_DESCRIPTION = [
  'Server-Sent Events. Every event is stored before it is sent, and each is one frame:',
  '',
  '```',
  'id: 7',
  'event: ToolCallResult',
  'data: {"type":"ToolCallResult","sessionId":"demo","seq":7,"at":"2026-01-01T00:00:00.000Z","callId":"read-1",...}',
  '```',
  '',
  "- `id:` the session's sequence number, the same as `seq`: 1, 2, 3, ... with no gaps.",
  '- `event:` the event type, the same as `type`: the name to pass to `addEventListener`.',
  '- `data:` one JSON line, a `SessionEvent` (the schema of this reply): the fields of its type and `seq` and `at`.',
  '',
  'The event types:',
  '',
  ...EVENT_LIST,
  '',
  'Resuming: the stored events after the resume point are sent first, then live ones follow, none lost or doubled at the seam.',
  'The resume point is the last id the client has: the `Last-Event-ID` header (an EventSource sends it when it reconnects), else `?after=N`,',
  'else 0 (the whole history). `Last-Event-ID` wins over `after`. A resume point past the last stored event of the session is a 400',
  "`API_ERR_VALIDATION` (no such id was sent by this session: it was deleted and created again, say); the session's last id is",
  '`lastEventId` in GET /sessions/{id}.',
  '',
  `The stream opens with \`retry: ${RECONNECT_DELAY_MS}\`: an EventSource waits ${RECONNECT_DELAY_MS / 1000} s before it reconnects.`,
  '',
  'The stream does not end on its own. A comment line (`:`) comes at least every 15 s when nothing else does. A client that reads',
  'nothing is disconnected once 10,000 frames or 64 MiB of events wait for it; it resumes from the last complete frame it got.',
  'Deleting the session ends its streams.',
].join('\n')

const EVENT_STREAM = {
  description: 'The event stream: frames whose `data:` is a `SessionEvent`',
  content: { 'text/event-stream': { schema: inline(SessionEventSchema) } },
}

const EventId = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description })

export const eventRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime; limits?: StreamLimits | undefined }> = (app, { runtime, limits }, done) => {
  app.get(
    '/sessions/:id/events',
    {
      sse: 'only',
      schema: {
        operationId: 'streamEvents',
        summary: "The session's events as Server-Sent Events: id is the session's sequence number; resume with Last-Event-ID or ?after=N",
        description: EVENT_STREAM_DESCRIPTION,
        tags: ['events'],
        params: SessionIdParams,
        querystring: Type.Object(
          {
            after: Type.Optional(EventId('The last event id the client has: the stream starts after it (0 when absent)')),
            access_token: Type.Optional(Type.String({ description: "TOOLEXEC_TOKEN or a key, for a browser's EventSource, which cannot send an Authorization header" })),
          },
          { additionalProperties: false },
        ),
        headers: Type.Object({ 'last-event-id': Type.Optional(EventId('The last event id the client has, as an EventSource sends it when it reconnects; wins over `after`')) }),
        response: { 200: EVENT_STREAM, ...errors(400, 401, 404, 406) },
      },
      // The SSE plugin refuses a client whose Accept excludes text/event-stream in a body of its own.
      onSend: async (request, reply, payload) => (reply.statusCode === 406 ? notAcceptable(request.headers.accept) : payload),
      // The session check runs before the SSE wrapper commits the response as a stream.
      preHandler: async (request) => {
        await runtime.events.assertResumable(request.params.id, resumePoint(request.headers['last-event-id'], request.query.after))
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
      await stream.run(request.params.id, runtime.events).catch((error: unknown) => {
        // The stream is already open, so no error reply can follow: the client resumes by id.
        runtime.database.noteFailure(error)
        request.log.warn({ err: error, sessionId: request.params.id }, 'event replay failed: stream closed')
      })
    },
  )
  done()
}

/** The last id the client has: Last-Event-ID wins over ?after=. */
function resumePoint(lastEventId: number | undefined, after: number | undefined): number {
  return lastEventId ?? after ?? 0
}

function notAcceptable(accept: string | undefined): string {
  return JSON.stringify(errorBody(new ToolexecError('API_ERR_NOT_ACCEPTABLE', [accept ?? '']), 406))
}
