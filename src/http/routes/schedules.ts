/** @module Schedule routes, including streaming early dispatch (open, add calls, close). */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import {
  AddCallBodySchema,
  AnthropicScheduleReplySchema,
  CreateScheduleBodySchema,
  OpenAIChatScheduleReplySchema,
  OpenAIResponsesScheduleReplySchema,
  ScheduleAcceptedReplySchema,
  ScheduleReplySchema,
} from '../../contracts/api.js'
import { ModelFormatSchema } from '../../contracts/model-formats.js'
import { scheduleInFormat } from '../../sessions/model-format-replies.js'
import type { Runtime } from '../../sessions/runtime.js'
import { principalOf } from '../principal.js'
import { refuseNewWorkWhenFull } from '../storage-guard.js'
import { errors, inline } from '../schema.js'

const ScheduleParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) })
const MAX_WAIT_SECONDS = 300

export const scheduleRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.post(
    '/schedules',
    {
      schema: {
        operationId: 'createSchedule',
        summary: 'Accept the tool calls of one model reply, for a session that exists or that `createSession` creates',
        description: [
          'An unknown `sessionId` is a 404 `API_ERR_SESSION_NOT_FOUND` and nothing is stored, unless the body asks to create the session with `createSession`',
          "(the fields of POST /sessions' body, its workspace among them; `{}` takes the server's defaults). On an existing session a `createSession` whose fields",
          'equal the ones the session has is accepted, so a retried request succeeds; one that differs is a 409 `API_ERR_SESSION_DIFFERS`.',
          'Schedules of a session run one after another. The schedules waiting to start are bounded, per session',
          '(TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION, default 100) and for the whole server (TOOLEXEC_MAX_QUEUED_SCHEDULES, default 5000):',
          'over a bound the reply is 429 `API_ERR_TOO_MANY_SCHEDULES` with `Retry-After` (seconds), and nothing of the schedule is stored.',
        ].join(' '),
        tags: ['schedules'],
        body: inline(CreateScheduleBodySchema),
        response: { 202: inline(ScheduleAcceptedReplySchema), ...errors(400, 404, 409, 429, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    async (request, reply) => reply.code(202).send(await runtime.schedules.submit(request.body, principalOf(request).id)),
  )

  app.post(
    '/schedules/:id/calls',
    {
      schema: {
        operationId: 'addScheduleCall',
        summary: 'Add a streamed call to an open schedule (1000 calls at most, as when posted at once); an eligible one starts at once (R11)',
        tags: ['schedules'],
        params: ScheduleParams,
        body: inline(AddCallBodySchema),
        response: { 202: inline(ScheduleAcceptedReplySchema), ...errors(400, 404, 409, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    async (request, reply) => reply.code(202).send(await runtime.schedules.addCall(request.params.id, request.body, principalOf(request).id)),
  )

  app.post(
    '/schedules/:id/close',
    {
      schema: {
        operationId: 'closeSchedule',
        summary: 'Close an open schedule: the calls not yet started are grouped and run',
        tags: ['schedules'],
        params: ScheduleParams,
        response: { 202: inline(ScheduleAcceptedReplySchema), ...errors(404, 409) },
      },
    },
    async (request, reply) => reply.code(202).send(await runtime.schedules.close(request.params.id)),
  )

  app.get(
    '/schedules/:id',
    {
      schema: {
        operationId: 'getSchedule',
        summary: "A schedule's status and every call's record; ?wait=N holds the reply up to N seconds until it ends; ?format= gives the results in a model API's shape",
        description: [
          'With `format`, the reply is `{scheduleId, sessionId, turnId, status, done, stopTurn, turnControl?}` and, once `done` (every call ended),',
          "the results as that API's next request carries them, the text of each byte for byte its `modelContent`:",
          '`anthropic`: `message`, the `user` message with one `tool_result` per call (images as base64 image blocks);',
          '`openai-chat`: `messages`, one `tool` message per call, then, when calls returned images, one `user` message carrying them as data URLs',
          "(a tool message cannot carry an image), each call's introduced by the text `Images returned by tool call <id>:`;",
          '`openai-responses`: `input`, one `function_call_output` per call (images as `input_image` data URLs).',
          'An image saved as an artifact is read back from it. `stopTurn` is true when a result asks to end the turn (R30): send the results, do not call the model again.',
        ].join(' '),
        tags: ['schedules'],
        params: ScheduleParams,
        querystring: Type.Object(
          {
            wait: Type.Optional(
              Type.Number({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: 'Seconds to hold the reply while the schedule is queued or running (0 when absent); fractions allowed' }),
            ),
            format: Type.Optional(inline(ModelFormatSchema)),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Union([inline(ScheduleReplySchema), inline(AnthropicScheduleReplySchema), inline(OpenAIChatScheduleReplySchema), inline(OpenAIResponsesScheduleReplySchema)]),
          ...errors(400, 404),
        },
      },
    },
    async (request) => {
      const schedule = await runtime.schedules.waitFor(request.params.id, request.query.wait ?? 0)
      const format = request.query.format
      if (format === undefined) return schedule
      return scheduleInFormat(schedule, format, (sessionId, artifactId) => runtime.sessions.findArtifact(sessionId, artifactId))
    },
  )
  done()
}
