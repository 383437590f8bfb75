/**
 * Floor (c): the least a persisted tool call can cost on this machine, with none of
 * toolexec's executor. It keeps only what the issue's own rules require of any design:
 * the 202 reply is sent once the schedule, its call and ScheduleAccepted are committed;
 * the call starts only once its start is committed (a crash must never re-run it); the
 * result and the last events are committed before any of them is sent; events are numbered
 * per session and stored with an index on (session, seq), so a client can resume by id; a
 * call id is unique in its session; the WAL stays bounded (checkpointed by toolexec's own
 * worker, off the request thread, which is what made this floor fastest). Every
 * shortcut favours the floor: two commits per call (acceptance and start share one),
 * commits shared by everything queued in a tick (or while the last commit ran), raw SSE writes with
 * the call's six frames in one write, no hooks, permissions, timeouts, input validation or
 * result budgets. An implementation that meets a ratio the floor misses would have to store
 * less than the floor does, or store it more cheaply. Given a PostgreSQL database URL after
 * the data dir, it stores there instead (bench:http's (e)); see floor-stores.ts.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { CreateScheduleBodySchema } from '../../src/contracts/api.js'
import { inline } from '../../src/http/schema.js'
import { serveAsChild } from './child-process.js'
import { FloorCalls, type FloorCall } from './floor-calls.js'
import { GroupCommits } from './floor-group-commits.js'
import { postgresFloorStore, sqliteFloorStore } from './floor-stores.js'

const [dataDir, databaseUrl] = process.argv.slice(2)
if (dataDir === undefined) throw new Error('usage: floor-child.ts <dataDir> [<postgres database URL>]')

// What-if knob: the same round trip with nothing stored, to show what the storage costs.
const storing = process.env.BENCH_FLOOR_NO_SQLITE !== '1'
const store = databaseUrl === undefined ? sqliteFloorStore(dataDir) : await postgresFloorStore(databaseUrl)
const calls = new FloorCalls(new GroupCommits(store, storing))
const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>()

app.post('/sessions', async (request, reply) => {
  const { id } = request.body as { id: string }
  calls.open(id)
  return reply.code(201).send({ id })
})

app.get('/sessions/:id/events', (request, reply) => {
  const { id } = request.params as { id: string }
  reply.hijack()
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  reply.raw.write(':\n\n')
  calls.stream(id, reply.raw)
})

app.post('/schedules', { schema: { body: inline(CreateScheduleBodySchema) } }, async (request, reply) => {
  const { sessionId, calls: [call] = [] } = request.body
  return reply.code(202).send(await calls.accept(sessionId, call as FloorCall))
})

const url = await app.listen({ host: '127.0.0.1', port: 0 })
serveAsChild(url, async () => {
  await app.close()
  const report = await store.report()
  return storing ? report : { ...report, succeededCalls: calls.finished, tool_calls: calls.finished }
})
