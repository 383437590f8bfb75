/**
 * A session's label (issue 28): given at creation or by PATCH /sessions/:id, kept by the store
 * (SQLite and PostgreSQL), shown by every read of the session, taken away with null; a label
 * that is too long, blank or holds a control character is a 400 with an error reply.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SESSION_LABEL_MAX, type ErrorReply, type Session, type SessionList } from '../../src/contracts/api.js'
import { startTestServer, type TestServer } from '../support/server.js'

let server: TestServer

beforeEach(async () => {
  server = await startTestServer()
})

afterEach(async () => {
  await server.close()
})

describe('session labels', () => {
  it('keeps the label given at creation and shows it in the session and the list', async () => {
    const created = await server.json<Session>('POST', '/sessions', { id: 's1', label: 'Fix the login timeout' })
    expect([created.status, created.body.label]).toEqual([201, 'Fix the login timeout'])
    expect((await server.json<Session>('GET', '/sessions/s1')).body.label).toBe('Fix the login timeout')
    expect((await server.json<SessionList>('GET', '/sessions')).body.sessions.map((session) => session.label)).toEqual(['Fix the login timeout'])
  })

  it('renames a session by PATCH and takes the label away with null', async () => {
    await server.json('POST', '/sessions', { id: 's1' })
    expect((await server.json<Session>('GET', '/sessions/s1')).body.label).toBeUndefined()
    const named = await server.json<Session>('PATCH', '/sessions/s1', { label: 'Übersetzung — 日本語 ✓' })
    expect([named.status, named.body.label]).toEqual([200, 'Übersetzung — 日本語 ✓'])
    const renamed = await server.json<Session>('PATCH', '/sessions/s1', { label: 'Second name' })
    expect((await server.json<Session>('GET', '/sessions/s1')).body).toEqual(renamed.body)
    expect(renamed.body.label).toBe('Second name')
    const cleared = await server.json<Session>('PATCH', '/sessions/s1', { label: null })
    expect([cleared.status, 'label' in cleared.body]).toEqual([200, false])
    expect((await server.json<Session>('GET', '/sessions/s1')).body.label).toBeUndefined()
  })

  it('deletes the label with its session', async () => {
    await server.json('POST', '/sessions', { id: 's1', label: 'gone soon' })
    expect((await server.json('DELETE', '/sessions/s1')).status).toBe(204)
    await server.json('POST', '/sessions', { id: 's1' })
    expect((await server.json<Session>('GET', '/sessions/s1')).body.label).toBeUndefined()
  })

  it.each([
    ['too long', 'x'.repeat(SESSION_LABEL_MAX + 1)],
    ['empty', ''],
    ['blank', '   '],
    ['a line break', 'one\ntwo'],
    ['a tab', 'one\ttwo'],
    ['an escape sequence', 'red \u001b[31m'],
    ['a NUL', 'a\u0000b'],
    ['a C1 control', 'a\u0085b'],
    ['a line separator', 'a\u2028b'],
    ['a right-to-left override', 'invoice\u202Etxt.exe'],
    ['not text', 42],
  ])('refuses a label that is %s with a 400 error reply, on create and on PATCH', async (_case, label) => {
    const created = await server.json<ErrorReply>('POST', '/sessions', { id: 's1', label })
    expect([created.status, created.body.error.code, typeof created.body.error.message]).toEqual([400, 'API_ERR_VALIDATION', 'string'])
    expect((await server.json('GET', '/sessions/s1')).status).toBe(404)
    await server.json('POST', '/sessions', { id: 's1', label: 'kept' })
    const patched = await server.json<ErrorReply>('PATCH', '/sessions/s1', { label })
    expect([patched.status, patched.body.error.code, typeof patched.body.error.message]).toEqual([400, 'API_ERR_VALIDATION', 'string'])
    expect((await server.json<Session>('GET', '/sessions/s1')).body.label).toBe('kept')
  })

  it('answers a PATCH of an unknown session, or with other fields, with an error reply', async () => {
    const unknown = await server.json<ErrorReply>('PATCH', '/sessions/nobody', { label: 'x' })
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'API_ERR_SESSION_NOT_FOUND'])
    await server.json('POST', '/sessions', { id: 's1' })
    const other = await server.json<ErrorReply>('PATCH', '/sessions/s1', { workspace: '/tmp' })
    expect([other.status, other.body.error.code]).toEqual([400, 'API_ERR_VALIDATION'])
  })

  it('takes a label of the longest length allowed', async () => {
    const longest = 'é'.repeat(SESSION_LABEL_MAX)
    const created = await server.json<Session>('POST', '/sessions', { id: 's1', label: longest })
    expect([created.status, created.body.label]).toEqual([201, longest])
  })
})
