/**
 * The stored session the replay bench reads: events of real tool calls (captured once
 * from the executor running a Read-like tool, then repeated with fresh call ids), written
 * through the real journal and store in batches that each share one unit of work.
 */
import { Type } from '@sinclair/typebox'
import { pino } from 'pino'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import { defineTool } from '../../src/contracts/tool-entry.js'
import { createExecutor } from '../../src/executor/executor.js'
import { EventBus } from '../../src/sessions/event-bus.js'
import { EventJournal } from '../../src/sessions/event-journal.js'
import { openStore } from '../../src/storage/open-store.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { createDenyingBroker } from '../../src/permissions/brokers.js'
import { createModePermissionService } from '../../src/permissions/mode-permission-service.js'

const TEMPLATE_CALL = 'call_template'
const TEMPLATE_SESSION = 'session_template'
const FILE_TEXT = 'export function add(a: number, b: number): number {\n  return a + b\n}\n'.repeat(3)

const readTool = defineTool({
  name: 'Read',
  description: 'Returns a small file',
  inputSchema: Type.Object({ file_path: Type.String() }, { additionalProperties: false }),
  readOnly: true,
  destructive: false,
  concurrentSafe: true,
  permission: { sideEffectScope: 'none' },
  handler: () => Promise.resolve(FILE_TEXT),
})

/** The events one scheduled call produces, as the server journals them. */
async function oneCallEvents(): Promise<ExecutorEvent[]> {
  const events: ExecutorEvent[] = []
  const executor = createExecutor({ permissions: createModePermissionService(), broker: createDenyingBroker(), registry: new InMemoryToolRegistry([readTool]) })
  const calls = [{ id: TEMPLATE_CALL, name: 'Read', input: { file_path: 'src/math/add.ts' } }]
  const scheduleId = 'sch_template'
  events.push({ type: 'ScheduleAccepted', sessionId: TEMPLATE_SESSION, scheduleId, turnId: 'turn_template', groups: [[TEMPLATE_CALL]] })
  const outcome = await executor.executeSchedule(calls, { sessionId: TEMPLATE_SESSION, scheduleId, signal: new AbortController().signal, emit: (event) => void events.push(event) })
  events.push({ type: 'ScheduleCompleted', sessionId: TEMPLATE_SESSION, scheduleId, status: outcome.status })
  return events
}

function withIds(template: readonly string[], sessionId: string, n: number): ExecutorEvent[] {
  return template.map((json) => JSON.parse(json.replaceAll(TEMPLATE_SESSION, sessionId).replaceAll('_template', `_${n}`)) as ExecutorEvent)
}

/** Writes `count` events of session `sessionId` into `<dataDir>/toolexec.db`; returns their total frame count. */
export async function writeSessionEvents(dataDir: string, sessionId: string, count: number, batchSize: number): Promise<number> {
  const template = (await oneCallEvents()).map((event) => JSON.stringify(event))
  const opened = await openStore({ dataDir, logger: pino({ level: 'silent' }) })
  const { store } = opened
  const journal = new EventJournal(store, new EventBus())
  const session = { id: sessionId, workspace: dataDir, permissionMode: 'default' as const, interactive: true, permissionTimeoutMs: null, createdAt: new Date().toISOString() }
  await store.commit((unit) => unit.sessions.insert(session))
  let written = 0
  let call = 0
  let pending: ExecutorEvent[] = []
  while (written < count) {
    if (pending.length === 0) pending = withIds(template, sessionId, call++)
    const take = Math.min(batchSize, count - written)
    for (let i = 0; i < take; i++) {
      if (pending.length === 0) pending = withIds(template, sessionId, call++)
      void journal.append(pending.shift() as ExecutorEvent)
    }
    await journal.flush()
    written += take
  }
  const stored = await store.events.lastSeq(sessionId)
  await journal.close()
  await opened.close()
  return stored
}
