/**
 * The events the server really emits are the ones the contract documents: every event a
 * run stored (and so streamed) validates against SessionEvent, with no field the schema of
 * its type does not name, and a frame's id and event name are its seq and type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExecutorEventSchema, type ExecutorEvent } from '../../src/contracts/events.js'
import type { ModelClient, ModelResponse } from '../../src/contracts/ports.js'
import { SESSION_EVENT_TYPES, SessionEventSchema } from '../../src/contracts/session-events.js'
import { closedUnion, validator } from '../support/event-validator.js'
import { AdmissionGate } from '../../src/executor/admission-gate.js'
import { wrapModelForCall } from '../../src/executor/model-status.js'
import { frameOf } from '../../src/http/session-stream.js'
import { bashHook, nodeHook } from '../support/hook-scripts/hooks.js'
import { configFile, SessionApi } from '../support/hook-scripts/session-api.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { editTool, readTool, sleepTool } from '../support/tools.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'

interface StoredRow {
  readonly seq: number
  readonly type: string
  readonly data: string
}

const progressTool = sleepTool('Progress', {
  handler: (_input, context) => {
    context.progress({ step: 1, of: 2 })
    return Promise.resolve('progressed')
  },
})

let s: TestServer
let api: SessionApi

beforeAll(async () => {
  const hooks = {
    PreToolUse: [
      { matcher: 'Read', hooks: [{ type: 'command', command: nodeHook({ additionalContext: 'read with care' }) }] },
      { matcher: 'Sleep', hooks: [{ type: 'command', command: nodeHook({ permissionDecision: 'deny', reason: 'no sleeping today' }) }] },
      { matcher: 'Progress', hooks: [{ type: 'command', command: bashHook('crash.sh') }] },
    ],
  }
  s = await startTestServer({ env: { TOOLEXEC_CONFIG: await configFile({ hooks }) }, tools: [readTool, editTool, sleepTool(), progressTool] })
  api = new SessionApi(s)
})

afterAll(async () => {
  await s?.close()
})

function storedEvents(): StoredRow[] {
  return sqliteDatabaseOf(s.runtime.store).prepare('SELECT seq, type, data FROM events ORDER BY id').all() as StoredRow[]
}

describe('the events a server emits and the contract', () => {
  it('every stored event of a run validates against SessionEvent, closed to undocumented fields, and its frame is named by its type and numbered by its seq', async () => {
    const sessionId = await api.session({ permissionMode: 'default' })
    // Read runs past a hook, Edit asks and is allowed, Sleep is blocked by a hook, Progress reports and outlives a crashing hook.
    const scheduleId = await api.accept(sessionId, [
      { id: 'read', name: 'Read', input: { file_path: 'notes.txt' } },
      { id: 'edit', name: 'Edit', input: { file_path: 'notes.txt' } },
      { id: 'sleep', name: 'Sleep', input: { ms: 1 } },
      { id: 'progress', name: 'Progress', input: { ms: 1 } },
    ])
    const request = await api.pending(sessionId)
    expect((await api.answer(request.id, { decision: 'allow' })).status).toBe(200)
    await api.finished(scheduleId)
    // An abort while a call waits for approval: the request resolves as abort, the schedule ends cancelled.
    const aborted = await api.accept(sessionId, [{ id: 'edit-2', name: 'Edit', input: { file_path: 'notes.txt' } }])
    await api.pending(sessionId)
    expect((await s.json('POST', `/sessions/${sessionId}/abort`)).status).toBe(200)
    await api.finished(aborted)

    const validate = validator(closedUnion())
    const rows = storedEvents()
    const findings = rows.flatMap((row) => (validate(JSON.parse(row.data)) ? [] : [`${row.type} ${row.data.slice(0, 200)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`]))
    expect(findings).toEqual([])
    for (const row of rows) {
      const event = JSON.parse(row.data) as { type: string; seq: number }
      expect([event.type, event.seq]).toEqual([row.type, row.seq])
      expect(frameOf({ sessionId, ...row })).toBe(`id: ${row.seq}\nevent: ${row.type}\ndata: ${row.data}\n\n`)
    }
    const seen = new Set(rows.map((row) => row.type))
    // ModelNetworkStatus needs a model, which the HTTP server has none of: checked below at the executor.
    // BackgroundTaskLost needs a server that died: checked in test/http/crash-background-tasks.test.ts.
    expect([...SESSION_EVENT_TYPES].filter((type) => !seen.has(type))).toEqual(['ModelNetworkStatus', 'BackgroundTaskLost'])
  })

  it('the model status events of a call validate against their executor schema', async () => {
    const model: ModelClient = { complete: (): Promise<ModelResponse> => Promise.resolve({ text: 'fine' }) }
    const events: ExecutorEvent[] = []
    const wrapped = wrapModelForCall(model, new AdmissionGate(1), { sessionId: 's', callId: 'c', emit: (event) => void events.push(event) })
    await wrapped.complete({ messages: [{ role: 'user', content: 'hello' }] }, new AbortController().signal)
    const validate = validator(ExecutorEventSchema)
    expect(events.map((event) => event.type)).toContain('ModelNetworkStatus')
    for (const event of events) expect(validate(event), JSON.stringify(validate.errors)).toBe(true)
  })

  it('the union lists each event type once, under the name of its type', () => {
    expect(new Set(SESSION_EVENT_TYPES).size).toBe(SESSION_EVENT_TYPES.length)
    for (const member of SessionEventSchema.anyOf) expect(member.$id).toBe(`${member.properties.type.const}Event`)
  })
})
