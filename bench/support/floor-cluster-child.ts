/**
 * A node of the floor cluster (bench:cluster's floor): the floor's call (floor-child.ts) on
 * PostgreSQL, with only what any cluster of nodes on one database must add to it
 * (floor-cluster-store.ts). The node a session is created on takes its lease and runs it: its
 * commits are fenced by the lease's epoch and notify the other nodes. A schedule posted to
 * another node is passed on over HTTP to the owner, found once from the lease row, and the
 * owner's answer is the answer. A stream on a node that does not run the session is fed from
 * the table: its rows read on the owner's wake-ups, every stream woken in one tick read in one
 * query, and read once when it opens. Nothing else: no hooks, permissions, timeouts, budgets,
 * adoption of orphaned sessions or pages of replay. Arguments: the database URL; environment:
 * BENCH_NODE_ID and BENCH_LEASE_MS, as toolexec-child.ts takes them.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { request as send } from 'undici'
import { CreateScheduleBodySchema } from '../../src/contracts/api.js'
import { inline } from '../../src/http/schema.js'
import { serveAsChild } from './child-process.js'
import { FloorCalls, type FloorCall } from './floor-calls.js'
import { postgresFloorClusterStore } from './floor-cluster-store.js'
import { RemoteStreams } from './floor-remote-streams.js'
import { GroupCommits } from './floor-group-commits.js'

const [databaseUrl] = process.argv.slice(2)
if (databaseUrl === undefined) throw new Error('usage: floor-cluster-child.ts <postgres database URL>')
const nodeId = process.env.BENCH_NODE_ID ?? `floor-${process.pid}`
const leaseMs = Number(process.env.BENCH_LEASE_MS ?? 5_000)
const PASSED_ON = 'x-floor-passed-on'

const store = await postgresFloorClusterStore(databaseUrl, { id: nodeId, leaseMs })
const calls = new FloorCalls(new GroupCommits(store))
const remote = new RemoteStreams(store)
const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>()
/** The owner of each session this node passed a request on to: read once, forgotten when it answers 503. */
const owners = new Map<string, string>()

app.post('/sessions', async (request, reply) => {
  const { id } = request.body as { id: string }
  if ((await store.takeLease(id)) === undefined) return reply.code(409).send({ error: { code: 'FLOOR_SESSION_HELD', message: `another node holds ${id}` } })
  calls.open(id)
  return reply.code(201).send({ id })
})

app.get('/sessions/:id/events', (request, reply) => {
  const { id } = request.params as { id: string }
  reply.hijack()
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  reply.raw.write(':\n\n')
  if (calls.runs(id)) calls.stream(id, reply.raw)
  else remote.add(id, reply.raw)
})

app.post('/schedules', { schema: { body: inline(CreateScheduleBodySchema) } }, async (request, reply) => {
  const { sessionId, calls: [call] = [] } = request.body
  if (calls.runs(sessionId)) return reply.code(202).send(await calls.accept(sessionId, call as FloorCall))
  const owner = request.headers[PASSED_ON] === undefined ? (owners.get(sessionId) ?? (await store.ownerUrl(sessionId))) : undefined
  if (owner === undefined) return reply.code(503).send({ error: { code: 'FLOOR_SESSION_MOVING', message: `no live node runs ${sessionId} here` } })
  owners.set(sessionId, owner)
  const answer = await send(new URL('/schedules', owner), { method: 'POST', headers: { 'content-type': 'application/json', [PASSED_ON]: nodeId }, body: JSON.stringify(request.body) })
  const body = await answer.body.text()
  if (answer.statusCode === 503) owners.delete(sessionId)
  return reply.code(answer.statusCode).header('content-type', 'application/json').send(body)
})

const address = await app.listen({ host: '127.0.0.1', port: 0 })
await store.register(address)
await store.listen((payload) => remote.wake(payload))
serveAsChild(address, async () => {
  await app.close()
  return store.report()
})
