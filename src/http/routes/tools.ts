/** @module Tool listing, client-defined HTTP tools added and removed while the server runs (kept across restarts), and health. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../contracts/audit.js'
import { ToolInfoSchema } from '../../contracts/api.js'
import { AnthropicToolSchema, ModelFormatSchema, OpenAIChatToolSchema, OpenAIResponsesToolSchema } from '../../contracts/model-formats.js'
import { toolsInFormat } from '../../sessions/model-format-replies.js'
import { ToolexecError } from '../../contracts/errors.js'
import { HttpToolDefinitionSchema } from '../../contracts/tool-config.js'
import type { Runtime } from '../../sessions/runtime.js'
import { toolView } from '../../sessions/views.js'
import { principalOf } from '../principal.js'
import { ERROR, errors, inline } from '../schema.js'
import { refuseNewWorkWhenFull } from '../storage-guard.js'

const ToolNameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) })
const TOOL_INFO = inline(ToolInfoSchema)
const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  sandbox: Type.Object({
    confined: Type.Boolean({ description: 'Every Bash command runs in the sandbox; when false, only strictly read-only commands run without asking' }),
    mode: Type.Union([Type.Literal('off'), Type.Literal('auto'), Type.Literal('required')]),
    reason: Type.Optional(Type.String({ description: 'Why commands are not confined' })),
  }),
  node: Type.Object({
    id: Type.String({ description: "This server's name in its cluster (TOOLEXEC_NODE_ID)" }),
    sessions: Type.Integer({ description: 'Sessions whose lease this server holds (on PostgreSQL; 0 on SQLite, where it runs every session)' }),
  }),
})

function sandboxHealth(runtime: Runtime): { confined: boolean; mode: 'off' | 'auto' | 'required'; reason?: string } {
  const { confined, mode, reason } = runtime.sandbox
  return reason === undefined ? { confined, mode } : { confined, mode, reason }
}

export const toolRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.get(
    '/tools',
    {
      schema: {
        operationId: 'listTools',
        summary: "Every tool with its description, input schema, flags, timeout policy and result budget; or, with ?format=, a model API's `tools` parameter",
        description:
          'Without `format`: `{tools}`, every tool as toolexec describes it. With `format`: a bare array, exactly the `tools` parameter of that API ' +
          '(built-in, MCP and HTTP tools alike), input schemas as plain JSON Schema with `type: "object"` at the top and no `$schema` or `$id`.',
        tags: ['tools'],
        querystring: Type.Object({ format: Type.Optional(inline(ModelFormatSchema)) }, { additionalProperties: false }),
        response: {
          200: Type.Union([
            Type.Object({ tools: Type.Array(TOOL_INFO) }),
            Type.Array(inline(AnthropicToolSchema), { description: 'format=anthropic' }),
            Type.Array(inline(OpenAIChatToolSchema), { description: 'format=openai-chat' }),
            Type.Array(inline(OpenAIResponsesToolSchema), { description: 'format=openai-responses' }),
          ]),
          ...errors(400),
        },
      },
    },
    (request) => {
      const tools = runtime.registry.list().map(toolView)
      const format = request.query.format
      return format === undefined ? { tools } : toolsInFormat(tools, format)
    },
  )

  app.post(
    '/tools',
    {
      schema: {
        operationId: 'addHttpTool',
        summary: 'Register a client-defined HTTP tool, kept across restarts: each call is POSTed to its url as {callId, sessionId, input} and answered with {content, isError?}',
        tags: ['tools'],
        body: inline(HttpToolDefinitionSchema),
        response: { 201: TOOL_INFO, ...errors(400, 409, 507) },
      },
      preHandler: refuseNewWorkWhenFull(runtime.storage),
    },
    async (request, reply) => {
      const entry = await runtime.clientTools.add(request.body, actorOf(principalOf(request)))
      return reply.code(201).send(toolView(entry))
    },
  )

  app.delete(
    '/tools/:name',
    {
      schema: {
        operationId: 'deleteHttpTool',
        summary: 'Remove a client-defined HTTP tool for good (one from the config file comes back at the next start); built-in and MCP tools cannot be removed. Calls already running finish.',
        tags: ['tools'],
        params: ToolNameParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...errors(404, 409) },
      },
    },
    async (request, reply) => {
      await runtime.clientTools.remove(request.params.name, actorOf(principalOf(request)))
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        summary:
          'Liveness, whether Bash commands are confined, and whether the database answers: 503 API_ERR_STORAGE_CORRUPT once it showed damage, API_ERR_STORAGE_UNAVAILABLE while PostgreSQL does not answer',
        tags: ['health'],
        security: [],
        response: { 200: HealthSchema, 503: ERROR },
      },
    },
    async (_request, reply) => {
      const trouble = await runtime.database.trouble()
      const node = { id: runtime.ownership.nodeId, sessions: runtime.ownership.heldCount }
      if (trouble === undefined) return { status: 'ok' as const, sandbox: sandboxHealth(runtime), node }
      const error = new ToolexecError(trouble.code, [trouble.reason])
      return reply.code(503).send({ error: { code: trouble.code, message: error.message } })
    },
  )
  done()
}
