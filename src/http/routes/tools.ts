/** @module Tool listing and health. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ToolInfoSchema } from '../../contracts/api.js'
import type { Runtime } from '../../sessions/runtime.js'
import { toolView } from '../../sessions/views.js'
import { inline } from '../schema.js'

export const toolRoutes: FastifyPluginAsyncTypebox<{ runtime: Runtime }> = async (app, { runtime }) => {
  app.get(
    '/tools',
    {
      schema: {
        operationId: 'listTools',
        summary: 'Every tool with its description, input schema, flags, timeout policy and result budget',
        tags: ['tools'],
        response: { 200: Type.Object({ tools: Type.Array(inline(ToolInfoSchema)) }) },
      },
    },
    async () => ({ tools: runtime.registry.list().map(toolView) }),
  )

  app.get(
    '/healthz',
    { schema: { operationId: 'health', summary: 'Liveness', tags: ['health'], security: [], response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  )
}
