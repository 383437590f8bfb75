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
 * commits shared by everything queued in a tick on the request thread, raw SSE writes with
 * the call's six frames in one write, no hooks, permissions, timeouts, input validation or
 * result budgets. An implementation that meets a ratio the floor misses would have to store
 * less than the floor does, or store it more cheaply.
 */
import { randomUUID } from 'node:crypto'
import { statSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import path from 'node:path'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { CreateScheduleBodySchema } from '../../src/contracts/api.js'
import { inline } from '../../src/http/schema.js'
import { startWalCheckpointer } from '../../src/storage/sqlite/wal-checkpointer.js'
import { serveAsChild } from './child-process.js'

const dataDir = process.argv[2]
if (dataDir === undefined) throw new Error('usage: floor-child.ts <dataDir>')

const db = new Database(path.join(dataDir, 'floor.db'))
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')
db.exec(`
CREATE TABLE events (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL, data TEXT NOT NULL);
CREATE UNIQUE INDEX events_by_session ON events(session_id, seq);
CREATE TABLE schedules (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL, groups_json TEXT NOT NULL, created_at TEXT NOT NULL, completed_at TEXT);
CREATE TABLE tool_calls (session_id TEXT NOT NULL, id TEXT NOT NULL, schedule_id TEXT NOT NULL, name TEXT NOT NULL, input_json TEXT NOT NULL,
  status TEXT NOT NULL, result_json TEXT, PRIMARY KEY (session_id, id));
`)
const insertEvent = db.prepare('INSERT INTO events (session_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)')
const insertSchedule = db.prepare("INSERT INTO schedules (id, session_id, status, groups_json, created_at) VALUES (?, ?, 'running', ?, ?)")
const insertCall = db.prepare("INSERT INTO tool_calls (session_id, id, schedule_id, name, input_json, status) VALUES (?, ?, ?, ?, ?, 'running')")
const completeCall = db.prepare("UPDATE tool_calls SET status = 'succeeded', result_json = ? WHERE session_id = ? AND id = ?")
const completeSchedule = db.prepare("UPDATE schedules SET status = 'completed', completed_at = ? WHERE id = ?")

interface FloorEvent {
  readonly seq: number
  readonly type: string
  readonly at: string
  readonly data: string
}

/** Writes queued in one tick share a commit; each resolves after it. */
class TickCommits {
  #writes: Array<() => void> = []
  #done: Array<() => void> = []
  readonly #commit = db.transaction((writes: ReadonlyArray<() => void>) => {
    for (const write of writes) write()
  })

  write(change: () => void): Promise<void> {
    if (this.#writes.length === 0) setImmediate(() => this.#flush())
    this.#writes.push(change)
    return new Promise<void>((resolve) => this.#done.push(resolve))
  }

  #flush(): void {
    const gate = checkpointer.writeGate()
    if (gate !== undefined) {
      void gate.then(() => this.#flush())
      return
    }
    const writes = this.#writes
    const done = this.#done
    this.#writes = []
    this.#done = []
    if (storing) this.#commit(writes)
    for (const resolve of done) resolve()
  }
}

// What-if knob: the same round trip with nothing stored, to show what the storage costs.
const storing = process.env.BENCH_FLOOR_NO_SQLITE !== '1'
const commits = new TickCommits()
const checkpointer = startWalCheckpointer(db)
let finished = 0
const streams = new Map<string, ServerResponse>()
const lastSeq = new Map<string, number>()

function nextEvent(sessionId: string, type: string, fields: Record<string, unknown>): FloorEvent {
  const seq = (lastSeq.get(sessionId) ?? 0) + 1
  lastSeq.set(sessionId, seq)
  const at = new Date().toISOString()
  return { seq, type, at, data: JSON.stringify({ type, sessionId, seq, at, ...fields }) }
}

function insertEvents(sessionId: string, events: readonly FloorEvent[]): void {
  for (const event of events) insertEvent.run(sessionId, event.seq, event.type, event.at, event.data)
}

function sendFrames(sessionId: string, events: readonly FloorEvent[]): void {
  streams.get(sessionId)?.write(events.map((event) => `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`).join(''))
}

const FLAGS = { readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none', alwaysAsk: false, requiresUserInteraction: false, dependencies: [] }

async function runCall(sessionId: string, scheduleId: string, call: { id: string; name: string; input: unknown }, started: FloorEvent[]): Promise<void> {
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
  await commits.write(() => {
    completeCall.run(JSON.stringify(result), sessionId, call.id)
    completeSchedule.run((ended[0] as FloorEvent).at, scheduleId)
    insertEvents(sessionId, ended)
  })
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
  await commits.write(() => {
    const at = (started[0] as FloorEvent).at
    insertSchedule.run(scheduleId, sessionId, JSON.stringify(groups), at)
    insertCall.run(sessionId, call.id, scheduleId, call.name, JSON.stringify(call.input))
    insertEvents(sessionId, started)
  })
  void runCall(sessionId, scheduleId, call, started)
  return reply.code(202).send({ scheduleId, sessionId, turnId, status: 'running', groups, calls: [{ id: call.id, name: call.name, flags: FLAGS }] })
})

let walPeakBytes = 0
const walSampler = setInterval(() => {
  walPeakBytes = Math.max(walPeakBytes, statSync(`${db.name}-wal`, { throwIfNoEntry: false })?.size ?? 0)
}, 250)
walSampler.unref()

const url = await app.listen({ host: '127.0.0.1', port: 0 })
serveAsChild(url, async () => {
  clearInterval(walSampler)
  const succeeded = storing ? (db.prepare("SELECT count(*) FROM tool_calls WHERE status = 'succeeded'").pluck().get() as number) : finished
  const events = db.prepare('SELECT count(*) FROM events').pluck().get() as number
  await app.close()
  checkpointer.stop()
  db.close()
  return { succeededCalls: succeeded, tool_calls: succeeded, events, walPeakBytes }
})
