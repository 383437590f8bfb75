/**
 * What a large Write leaves behind: the records, the event journal and the replies keep the
 * sizes and hashes of the file's texts, not the texts, while a PostToolUse hook still gets them.
 */
import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryEntry, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import type { HookPayload } from '../../src/contracts/ports.js'
import { createFunctionHookRunner } from '../../src/hooks/function-hook-runner.js'
import { createReadTool } from '../../src/tools/read/index.js'
import { createWriteTool } from '../../src/tools/write/index.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'

const MB = 1024 * 1024
const BEFORE = 'the old line of a large file\n'.repeat(Math.floor((3 * MB) / 29))
const AFTER = 'a new line, of a large file.\n'.repeat(Math.floor((3 * MB) / 29))
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

const posted: HookPayload[] = []
let server: TestServer
let file: string
let scheduleId: string

beforeAll(async () => {
  server = await startTestServer({
    tools: [createReadTool(), createWriteTool()],
    hooks: createFunctionHookRunner([{ event: 'PostToolUse', matcher: 'Write', name: 'keep', run: (payload) => void posted.push(payload) }]),
  })
  file = path.join(server.dataDir, 'large.txt')
  await writeFile(file, BEFORE)
  await server.json('POST', '/sessions', { id: 'large', permissionMode: 'bypassPermissions' })
  const calls = [
    { id: 'read-1', name: 'Read', input: { file_path: file, limit: 1 } },
    { id: 'write-1', name: 'Write', input: { file_path: file, content: AFTER }, dependsOn: ['read-1'] },
  ]
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 'large', createSession: {}, calls })
  expect(accepted.status).toBe(202)
  scheduleId = accepted.body.scheduleId
  const done = await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=30`)
  expect(done.body.calls.map((call) => call.status)).toEqual(['succeeded', 'succeeded'])
})

afterAll(async () => {
  await server?.close()
})

/** The bytes one call's record and its events take in the database. */
function storedBytesOf(callId: string): number {
  const db = sqliteDatabaseOf(server.runtime.store)
  const row = db
    .prepare(
      `SELECT coalesce(length(CAST(input_json AS BLOB)), 0) + coalesce(length(CAST(resolved_input_json AS BLOB)), 0)
        + coalesce(length(CAST(result_json AS BLOB)), 0)
        FROM tool_calls WHERE session_id = 'large' AND id = ?`,
    )
    .pluck()
    .get(callId) as number
  const events = db.prepare("SELECT data FROM events WHERE session_id = 'large'").pluck().all() as string[]
  const own = events.filter((data) => (JSON.parse(data) as { callId?: string }).callId === callId)
  return row + own.reduce((sum, data) => sum + Buffer.byteLength(data), 0)
}

describe('a 3 MB Write over a 3 MB file', () => {
  const recorded = () => ({
    type: 'update',
    filePath: file,
    oldBytes: Buffer.byteLength(BEFORE),
    newBytes: Buffer.byteLength(AFTER),
    oldSha256: sha256(BEFORE),
    newSha256: sha256(AFTER),
  })

  it('is served by the schedule and the history with sizes and hashes instead of the texts', async () => {
    const schedule = await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}`)
    expect(schedule.body.calls.find((call) => call.id === 'write-1')?.result?.output).toEqual(recorded())
    const history = await server.json<{ entries: HistoryEntry[] }>('GET', '/sessions/large/history')
    expect(history.body.entries.find((entry) => entry.callId === 'write-1')?.result.output).toEqual(recorded())
  })

  it('keeps neither text in its record or its result event: only the input and the start event hold the content', () => {
    const db = sqliteDatabaseOf(server.runtime.store)
    const row = db.prepare("SELECT resolved_input_json, result_json FROM tool_calls WHERE id = 'write-1'").get() as Record<string, string | null>
    expect(row.resolved_input_json).toBeNull()
    expect((JSON.parse(row.result_json ?? 'null') as { output?: unknown }).output).toEqual(recorded())
    // What is left is the bounded file_diff display (160 lines at most) and the model's text.
    expect(row.result_json?.length).toBeLessThan(16 * 1024)
    const streamed = db.prepare("SELECT data FROM events WHERE session_id = 'large' AND type = 'ToolCallResult'").pluck().all() as string[]
    expect(streamed.map((data) => data.length < 16 * 1024)).toEqual([true, true])
    // The input and the ToolCallStarted event each hold the content once, as JSON.
    expect(storedBytesOf('write-1')).toBeLessThan(2 * JSON.stringify(AFTER).length + 48 * 1024)
  })

  it('still gives a PostToolUse hook both whole texts', () => {
    expect(posted).toHaveLength(1)
    expect(posted[0]?.toolResult?.output).toEqual({ type: 'update', filePath: file, oldContent: BEFORE, newContent: AFTER })
  })
})
