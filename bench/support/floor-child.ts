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
import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { CreateScheduleBodySchema } from '../../src/contracts/api.js'
import { inline } from '../../src/http/schema.js'
import { serveAsChild } from './child-process.js'
import { postgresFloorStore, sqliteFloorStore, type AcceptedCall, type EndedCall, type FloorEvent, type FloorStore } from './floor-stores.js'

const [dataDir, databaseUrl] = process.argv.slice(2)
if (dataDir === undefined) throw new Error('usage: floor-child.ts <dataDir> [<postgres database URL>]')

/**
 * Calls queued while a commit runs (or in the same tick) share the next commit; each resolves
 * after its own. On SQLite a commit is synchronous, so this is a commit per tick.
 */
class GroupCommits {
  #accepted: AcceptedCall[] = []
  #ended: EndedCall[] = []
  #done: Array<() => void> = []
  #committing = false

  constructor(readonly store: FloorStore) {}

  accept(call: AcceptedCall): Promise<void> {
    this.#accepted.push(call)
    return this.#queued()
  }

  end(call: EndedCall): Promise<void> {
    this.#ended.push(call)
    return this.#queued()
  }

  #queued(): Promise<void> {
    if (this.#done.length === 0 && !this.#committing) setImmediate(() => void this.#flush())
    return new Promise<void>((resolve) => this.#done.push(resolve))
  }

  async #flush(): Promise<void> {
    const batch = { accepted: this.#accepted, ended: this.#ended }
    const done = this.#done
    this.#accepted = []
    this.#ended = []
    this.#done = []
    this.#committing = true
    if (storing) await this.store.commit(batch)
    this.#committing = false
    for (const resolve of done) resolve()
    if (this.#done.length > 0) setImmediate(() => void this.#flush())
  }
}

// What-if knob: the same round trip with nothing stored, to show what the storage costs.
const storing = process.env.BENCH_FLOOR_NO_SQLITE !== '1'
const store = databaseUrl === undefined ? sqliteFloorStore(dataDir) : await postgresFloorStore(databaseUrl)
const commits = new GroupCommits(store)
let finished = 0
const streams = new Map<string, ServerResponse>()
const lastSeq = new Map<string, number>()

function nextEvent(sessionId: string, type: string, fields: Record<string, unknown>): FloorEvent {
  const seq = (lastSeq.get(sessionId) ?? 0) + 1
  lastSeq.set(sessionId, seq)
  const at = new Date().toISOString()
  return { seq, type, at, data: JSON.stringify({ type, sessionId, seq, at, ...fields }) }
}

function sendFrames(sessionId: string, events: readonly FloorEvent[]): void {
  streams.get(sessionId)?.write(events.map((event) => `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`).join(''))
}

const FLAGS = { readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none', alwaysAsk: false, requiresUserInteraction: false, dependencies: [] }

async function runCall(sessionId: string, scheduleId: string, call: { id: string; name: string; input: unknown }, started: readonly FloorEvent[]): Promise<void> {
  const output = await Promise.resolve('ok')
  const result = {
    callId: call.id,
    toolName: call.name,
    success: true,
    status: 'succeeded',
    isError: false,
    modelContent: output,
    output,
    serialization: { truncated: false, originalBytes: 2, actualBytes: 2, strategy: 'inline' },
    perf: { totalMs: 0, permissionWaitMs: 0, queuedMs: 0 },
    permission: 'none',
    hookContext: [],
  }
  const ended = [
    nextEvent(sessionId, 'ToolCallResult', { callId: call.id, toolName: call.name, result }),
    nextEvent(sessionId, 'BatchCompleted', { scheduleId, batchIndex: 0, callIds: [call.id], stopTurn: false }),
    nextEvent(sessionId, 'ScheduleCompleted', { scheduleId, status: 'completed' }),
  ]
  await commits.end({ sessionId, scheduleId, callId: call.id, resultJson: JSON.stringify(result), events: ended })
  finished++
  sendFrames(sessionId, [...started, ...ended])
}
const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>()

app.post('/sessions', async (request, reply) => {
  const { id } = request.body as { id: string }
  lastSeq.set(id, 0)
  return reply.code(201).send({ id })
})

app.get('/sessions/:id/events', (request, reply) => {
  const { id } = request.params as { id: string }
  reply.hijack()
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  reply.raw.write(':\n\n')
  streams.set(id, reply.raw)
  reply.raw.on('close', () => streams.delete(id))
})

app.post('/schedules', { schema: { body: inline(CreateScheduleBodySchema) } }, async (request, reply) => {
  const { sessionId, calls } = request.body
  const call = calls?.[0] as { id: string; name: string; input: unknown }
  const scheduleId = `sch_${randomUUID()}`
  const turnId = `turn_${randomUUID()}`
  const groups = [[call.id]]
  const started = [
    nextEvent(sessionId, 'ScheduleAccepted', { scheduleId, turnId, groups }),
    nextEvent(sessionId, 'BatchStarted', { scheduleId, batchIndex: 0, callIds: [call.id] }),
    nextEvent(sessionId, 'ToolCallStarted', { callId: call.id, toolName: call.name, input: call.input, flags: FLAGS }),
  ]
  await commits.accept({ sessionId, scheduleId, groupsJson: JSON.stringify(groups), callId: call.id, name: call.name, inputJson: JSON.stringify(call.input), events: started })
  void runCall(sessionId, scheduleId, call, started)
  return reply.code(202).send({ scheduleId, sessionId, turnId, status: 'running', groups, calls: [{ id: call.id, name: call.name, flags: FLAGS }] })
})

const url = await app.listen({ host: '127.0.0.1', port: 0 })
serveAsChild(url, async () => {
  await app.close()
  const report = await store.report()
  return storing ? report : { ...report, succeededCalls: finished, tool_calls: finished }
})
