/**
 * The stored session the replay bench reads: events of real tool calls (captured once
 * from the executor running a Read-like tool, then repeated with fresh call ids), written
 * through the real journal and store in batches that each share one transaction.
 */
import path from 'node:path'
import { Type } from '@sinclair/typebox'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import { defineTool } from '../../src/contracts/tool-entry.js'
import { createExecutor } from '../../src/executor/executor.js'
import { EventBus } from '../../src/sessions/event-bus.js'
import { EventJournal } from '../../src/sessions/event-journal.js'
import { openDatabase } from '../../src/storage/sqlite/database.js'
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js'
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
  const db = openDatabase(path.join(dataDir, 'toolexec.db'))
  const store = new SqliteStore(db)
  const journal = new EventJournal(store, new EventBus())
  store.insertSession({ id: sessionId, workspace: dataDir, permissionMode: 'default', interactive: true, permissionTimeoutMs: null, createdAt: new Date().toISOString() })
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
    journal.flush()
    written += take
  }
  const stored = store.lastSeq(sessionId)
  db.close()
  return stored
}
