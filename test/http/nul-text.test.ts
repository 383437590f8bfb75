/**
 * A NUL character (U+0000) in what a client or a model sends: PostgreSQL cannot store it in a
 * text column, SQLite can. Either way the request gets a clear answer and the server goes on.
 */
import { describe, expect, it } from 'vitest'
import type { ErrorReply, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { useHttpSuite } from '../support/http-suite.js'
import type { TestServer } from '../support/server.js'
import { testBackend } from '../support/test-database.js'

let s: TestServer
useHttpSuite((server) => {
  s = server
})

async function newSession(): Promise<string> {
  const created = await s.json<Session>('POST', '/sessions', {})
  expect(created.status).toBe(201)
  return created.body.id
}

describe('a NUL character', () => {
  it('in a call name is refused with 400 API_ERR_VALIDATION on both backends', async () => {
    const sessionId = await newSession()
    const reply = await s.json<ErrorReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: 'a', name: 'Re\u0000ad', input: {} }] })
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
  })

  it('in a tool input ends the call with a text the model reads on PostgreSQL, where its permission request cannot be stored; SQLite asks', async () => {
    const sessionId = await newSession()
    const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: 'e', name: 'Edit', input: { file_path: 'a\u0000b.txt' } }] })
    expect(accepted.status).toBe(202)
    const reply = await s.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=2`)
    const call = reply.body.calls[0]
    if (testBackend() === 'postgres') {
      expect(call?.status).toBe('failed')
      expect(call?.modelContent).toMatch(/^Text holding a NUL character \(U\+0000\) cannot be stored/)
    } else {
      expect(call?.status).toBe('awaiting_permission')
      await s.json('POST', `/sessions/${sessionId}/abort`, {})
    }
    const read = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: 'r', name: 'Read', input: { file_path: 'missing.txt' } }] })
    expect(read.status).toBe(202)
    const after = await s.json<ScheduleReply>('GET', `/schedules/${read.body.scheduleId}?wait=10`)
    expect(after.body.status).toBe('completed')
  })
})
