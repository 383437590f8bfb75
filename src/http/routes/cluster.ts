/** @module The servers sharing this one's database: GET /cluster. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { Runtime } from '../../sessions/runtime.js'

const ClusterNodeSchema = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'Where the other servers reach it (TOOLEXEC_ADVERTISE_URL, else its listening address)' }),
  startedAt: Type.String(),
  seenAt: Type.String({ description: 'Its last heartbeat, by the database clock' }),
  live: Type.Boolean({ description: 'Its last heartbeat is within the lease time (TOOLEXEC_LEASE_MS)' }),
})

const ClusterSchema = Type.Object({
  self: Type.String({ description: "This server's id" }),
  backend: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  nodes: Type.Array(ClusterNodeSchema, { description: 'Every registered server, this one too; on SQLite this one alone' }),
})

export const clusterRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.get(
    '/cluster',
    {
      schema: {
        operationId: 'getCluster',
        summary: 'The servers sharing this one’s database (a cluster on PostgreSQL): each with its heartbeat and whether it is live',
        tags: ['health'],
        response: { 200: ClusterSchema },
      },
    },
    async () => ({ self: runtime.ownership.nodeId, backend: runtime.database.backend, nodes: await runtime.ownership.nodes() }),
  )
  done()
}
