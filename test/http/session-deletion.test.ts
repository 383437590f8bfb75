import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CallRecord, ErrorReply, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { rowCounts } from '../support/row-counts.js'
import { SseClient } from '../support/sse-client.js'
import { sleepTool } from '../support/tools.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'
import { textOf } from '../support/model-text.js'

let server: TestServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

const BIG_OUTPUT = "head -c 300000 /dev/zero | tr '\\0' a"

async function runBash(s: TestServer, sessionId: string, callId: string, command: string): Promise<ScheduleReply> {
  const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: callId, name: 'Bash', input: { command } }] })
  expect(accepted.status).toBe(202)
  return (await s.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)).body
}

async function runCall(s: TestServer, sessionId: string, callId: string, name: string, input: unknown): Promise<CallRecord> {
  const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: callId, name, input }] })
  return endedCall((await s.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)).body, name)
}

/** The schedule's one call, once it has its result: its status and `modelContent` are the record's. */
function endedCall(reply: ScheduleReply, name: string): CallRecord {
  const call = reply.calls[0]
  if (call?.result === undefined) throw new Error(`${name} has no result: ${JSON.stringify(call)}`)
  return call
}

/** Runs a call that asks, allowing it once asked. */
async function runApproved(s: TestServer, sessionId: string, callId: string, name: string, input: unknown): Promise<CallRecord> {
  const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: callId, name, input }] })
  let pending: Array<{ id: string }> = []
  for (let tries = 0; pending.length === 0 && tries < 200; tries++) {
    pending = (await s.json<{ requests: Array<{ id: string }> }>('GET', `/permissions?sessionId=${sessionId}&status=pending`)).body.requests
    if (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  expect((await s.json('POST', `/permissions/${pending[0]?.id}`, { decision: 'allow' })).status).toBe(200)
  return endedCall((await s.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)).body, name)
}

/** The artifact a Bash call saved its large output to: id and file. */
function artifactOf(s: TestServer, sessionId: string, callId: string): { id: string; path: string } {
  const row = sqliteDatabaseOf(s.runtime.store).prepare('SELECT id, path FROM artifacts WHERE session_id = ? AND call_id = ?').get(sessionId, callId) as { id: string; path: string } | undefined
  if (row === undefined) throw new Error(`no artifact for ${sessionId}/${callId}`)
  return row
}

const rowsOf = (s: TestServer, sessionId: string): number[] =>
  ['schedules', 'tool_calls', 'events', 'artifacts'].map((table) => sqliteDatabaseOf(s.runtime.store).prepare(`SELECT count(*) FROM ${table} WHERE session_id = ?`).pluck().get(sessionId) as number)

describe('DELETE /sessions/:id', () => {
  it('deletes the session, its rows and its artifact files, and nothing of a session whose files share its folder', async () => {
    server = await startTestServer({ tools: builtinTools() })
    // Both ids sanitize to the same artifact folder name, a_b.
    for (const id of ['a:b', 'a_b']) {
      await server.json('POST', '/sessions', { id, permissionMode: 'bypassPermissions' })
      expect((await runBash(server, id, 'c1', BIG_OUTPUT)).calls[0]?.status).toBe('succeeded')
    }
    const gone = artifactOf(server, 'a:b', 'c1')
    const kept = artifactOf(server, 'a_b', 'c1')
    expect(rowsOf(server, 'a:b').every((count) => count > 0)).toBe(true)

    const reply = await server.json('DELETE', '/sessions/a:b')
    expect([reply.status, reply.body]).toEqual([204, undefined])
    expect(rowsOf(server, 'a:b')).toEqual([0, 0, 0, 0])
    expect((await server.json<ErrorReply>('GET', '/sessions/a:b')).status).toBe(404)
    expect((await server.json<ErrorReply>('GET', `/artifacts/a:b/${gone.id}`)).status).toBe(404)
    expect(existsSync(gone.path)).toBe(false)

    expect(existsSync(kept.path)).toBe(true)
    expect(rowsOf(server, 'a_b').every((count) => count > 0)).toBe(true)
    const history = await server.json<{ entries: unknown[] }>('GET', '/sessions/a_b/history')
    expect(history.body.entries).toHaveLength(1)
  })

  it('replies 404 for an unknown session', async () => {
    server = await startTestServer()
    const reply = await server.json<ErrorReply>('DELETE', '/sessions/nope')
    expect([reply.status, reply.body.error.code]).toEqual([404, 'API_ERR_SESSION_NOT_FOUND'])
  })

  it('replies 409 while a schedule runs, saying how to abort it; after the abort it deletes', async () => {
    server = await startTestServer({ tools: [sleepTool()] })
    await server.json('POST', '/sessions', { id: 's1' })
    const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's1', createSession: {}, calls: [{ id: 'c1', name: 'Sleep', input: { ms: 30_000 } }] })
    const busy = await server.json<ErrorReply>('DELETE', '/sessions/s1')
    expect([busy.status, busy.body.error.code]).toEqual([409, 'API_ERR_SESSION_BUSY'])
    expect(busy.body.error.message).toContain('POST /sessions/s1/abort')
    expect(rowsOf(server, 's1')[0]).toBe(1)

    await server.json('POST', '/sessions/s1/abort')
    const ended = await server.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
    expect(ended.body.status).toBe('cancelled')
    expect((await server.json('DELETE', '/sessions/s1')).status).toBe(204)
    expect((await rowCounts(server)).schedule_aborts).toBe(0)
  })

  it('refuses a session with a background task running', async () => {
    server = await startTestServer({ tools: builtinTools() })
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', {
      sessionId: 's1',
      createSession: {},
      calls: [{ id: 'c1', name: 'Bash', input: { command: 'sleep 30', run_in_background: true } }],
    })
    await server.json('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
    const busy = await server.json<ErrorReply>('DELETE', '/sessions/s1')
    expect([busy.status, busy.body.error.message]).toEqual([409, expect.stringContaining('a background task is running')])
    await server.json('POST', '/sessions/s1/abort')
  })

  it('forgets its finished background commands: a new session with the same id cannot read their output', async () => {
    server = await startTestServer({ tools: builtinTools() })
    const finishedTask = async (s: TestServer, sessionId: string, text: string): Promise<string> => {
      await s.json('POST', '/sessions', { id: sessionId, permissionMode: 'bypassPermissions' })
      const started = await runCall(s, sessionId, 'c1', 'Bash', { command: `echo ${text}`, run_in_background: true })
      const taskId = /with ID: (bash_[0-9a-f]{8})$/.exec(textOf(started.modelContent))?.[1] ?? ''
      expect(textOf((await runCall(s, sessionId, 'c2', 'TaskOutput', { task_id: taskId })).modelContent)).toContain(text)
      return taskId
    }
    const deletedTask = await finishedTask(server, 's1', 'deleted-session-output')
    const keptTask = await finishedTask(server, 's2', 'other-session-output')
    expect((await server.json('DELETE', '/sessions/s1')).status).toBe(204)

    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    const after = await runCall(server, 's1', 'c2', 'TaskOutput', { task_id: deletedTask })
    expect(after.modelContent).toBe(`<tool_use_error>No task found with ID: ${deletedTask}</tool_use_error>`)
    expect(textOf((await runCall(server, 's2', 'c3', 'TaskOutput', { task_id: keptTask })).modelContent)).toContain('other-session-output')
  })

  it('forgets which files it read: a new session with the same id must read a file before it writes it', async () => {
    server = await startTestServer({ tools: builtinTools() })
    writeFileSync(path.join(server.dataDir, 'notes.txt'), 'first\n')
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    expect((await runCall(server, 's1', 'c1', 'Read', { file_path: 'notes.txt' })).status).toBe('succeeded')
    expect((await server.json('DELETE', '/sessions/s1')).status).toBe(204)

    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    const written = await runCall(server, 's1', 'c2', 'Write', { file_path: 'notes.txt', content: 'second\n' })
    expect(written.status).toBe('failed')
    expect(textOf(written.modelContent)).toContain('has not been read in this session')
    expect(readFileSync(path.join(server.dataDir, 'notes.txt'), 'utf8')).toBe('first\n')
  })

  it('forgets the mode it left for plan mode: a new session with the same id leaving plan mode does not get it', async () => {
    server = await startTestServer({ tools: builtinTools() })
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    expect((await runCall(server, 's1', 'c1', 'EnterPlanMode', {})).status).toBe('succeeded')
    expect((await server.json<Session>('GET', '/sessions/s1')).body.permissionMode).toBe('plan')
    expect((await server.json('DELETE', '/sessions/s1')).status).toBe(204)

    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'plan' })
    const exited = await runApproved(server, 's1', 'c1', 'ExitPlanMode', { plan: 'the plan' })
    expect(exited.status).toBe('succeeded')
    expect((await server.json<Session>('GET', '/sessions/s1')).body.permissionMode).toBe('default')
  })

  it('closes its approvals: answering one after the delete is a 409 saying the session was deleted, whatever the answer', async () => {
    server = await startTestServer()
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'default' })
    await runApproved(server, 's1', 'c1', 'Edit', { file_path: 'a.txt' })
    const permissionId = (await server.runtime.store.approvals.lastForCall('s1', 'c1'))?.id
    expect((await server.json('DELETE', '/sessions/s1')).status).toBe(204)

    for (const decision of ['deny', 'allow']) {
      const answer = await server.json<ErrorReply>('POST', `/permissions/${permissionId}`, { decision })
      expect([answer.status, answer.body.error]).toEqual([
        409,
        { code: 'API_ERR_PERMISSION_CLOSED', message: `Permission request ${permissionId} is closed (its session was deleted): nobody decides it any more` },
      ])
    }
  })

  it('ends the session event streams; a new session with the same id starts again at event 1', async () => {
    server = await startTestServer({ tools: builtinTools() })
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    await runBash(server, 's1', 'c1', 'echo one')
    const stream = await SseClient.open(server.url, 's1')
    await stream.waitFor((frame) => frame.event === 'ScheduleCompleted')
    expect((await server.json('DELETE', '/sessions/s1')).status).toBe(204)
    await stream.ended

    const again = await server.json<Session>('POST', '/sessions', { id: 's1', permissionMode: 'bypassPermissions' })
    expect([again.status, again.body.lastEventId]).toEqual([201, 0])
    await runBash(server, 's1', 'c1', 'echo two')
    const fresh = await SseClient.open(server.url, 's1')
    const accepted = await fresh.waitFor((frame) => frame.event === 'ScheduleAccepted')
    expect(accepted.id).toBe('1')
    await fresh.close()
  })
})
