/** Baseline (b): a bare fastify POST route taking the same body, validated by the same TypeBox schema. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { CreateScheduleBodySchema } from '../../src/contracts/api.js'
import { inline } from '../../src/http/schema.js'
import { serveAsChild } from './child-process.js'

const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>()
app.post('/schedules', { schema: { body: inline(CreateScheduleBodySchema) } }, async (request, reply) =>
  reply.code(202).send({ sessionId: request.body.sessionId, accepted: request.body.calls?.length ?? 0 }),
)
const url = await app.listen({ host: '127.0.0.1', port: 0 })
serveAsChild(url, async () => {
  await app.close()
  return null
})
