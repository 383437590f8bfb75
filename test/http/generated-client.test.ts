import createClient from 'openapi-fetch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { components, paths } from '../generated/openapi.js'
import { startTestServer, type TestServer } from '../support/server.js'

type PermissionRequest = components['schemas']['PermissionRequestRecord']
type Schedule = components['schemas']['Schedule']

const TOKEN = 'generated-client-token'
const SESSION = 'generated-client'

let server: TestServer

beforeAll(async () => {
  // With a token, so the client's bearer header is exercised as the document describes it.
  server = await startTestServer({ env: { TOOLEXEC_TOKEN: TOKEN } })
})

afterAll(async () => {
  await server.close()
})

function client(): ReturnType<typeof createClient<paths>> {
  return createClient<paths>({ baseUrl: server.url, headers: { authorization: `Bearer ${TOKEN}` } })
}

async function pendingPermissionFor(api: ReturnType<typeof client>, callId: string): Promise<PermissionRequest> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const { data, response } = await api.GET('/permissions', { params: { query: { sessionId: SESSION, status: 'pending' } } })
    expect(response.status).toBe(200)
    const request = data?.requests.find((candidate) => candidate.callId === callId)
    if (request !== undefined) return request
    if (Date.now() > deadline) throw new Error(`no pending permission for ${callId}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function completedSchedule(api: ReturnType<typeof client>, scheduleId: string): Promise<Schedule> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const { data, response } = await api.GET('/schedules/{id}', { params: { path: { id: scheduleId }, query: { wait: '5' } } })
    expect(response.status).toBe(200)
    if (data !== undefined && data.status !== 'queued' && data.status !== 'running') return data
    if (Date.now() > deadline) throw new Error(`schedule ${scheduleId} did not end`)
  }
}

describe('a client generated from openapi.yaml', () => {
  it('drives one schedule with an approval: Read runs, Edit waits for the answer, then both succeed', async () => {
    const api = client()
    const created = await api.POST('/sessions', { body: { id: SESSION, permissionMode: 'default' } })
    expect(created.response.status).toBe(201)
    expect(created.data).toMatchObject({ id: SESSION, permissionMode: 'default', status: 'idle' })

    const accepted = await api.POST('/schedules', {
      body: {
        sessionId: SESSION,
        calls: [
          { id: 'read-1', name: 'Read', input: { file_path: 'notes.txt' } },
          { id: 'edit-1', name: 'Edit', input: { file_path: 'notes.txt' } },
        ],
      },
    })
    expect(accepted.response.status).toBe(202)
    const scheduleId = accepted.data?.scheduleId ?? ''
    expect(accepted.data?.calls.map((call) => call.id)).toEqual(['read-1', 'edit-1'])

    const permission = await pendingPermissionFor(api, 'edit-1')
    expect(permission).toMatchObject({ sessionId: SESSION, toolName: 'Edit', status: 'pending' })
    const answered = await api.POST('/permissions/{id}', { params: { path: { id: permission.id } }, body: { decision: 'allow' } })
    expect(answered.response.status).toBe(200)
    expect(answered.data).toMatchObject({ id: permission.id, status: 'allow', decidedBy: 'client' })

    const schedule = await completedSchedule(api, scheduleId)
    expect(schedule.status).toBe('completed')
    const byId = new Map(schedule.calls.map((call) => [call.id, call]))
    expect(byId.get('read-1')).toMatchObject({ name: 'Read', status: 'succeeded', modelContent: 'contents of notes.txt' })
    expect(byId.get('edit-1')).toMatchObject({ name: 'Edit', status: 'succeeded', modelContent: 'edited notes.txt' })
    expect(byId.get('edit-1')?.result?.isError).toBe(false)
  })

  it('gets the documented error reply, typed, for an unknown schedule and for a missing token', async () => {
    const missing = await client().GET('/schedules/{id}', { params: { path: { id: 'sch_missing' } } })
    expect(missing.response.status).toBe(404)
    expect(missing.error?.error.code).toBe('API_ERR_SCHEDULE_NOT_FOUND')

    const anonymous = createClient<paths>({ baseUrl: server.url })
    const refused = await anonymous.GET('/sessions/{id}', { params: { path: { id: SESSION } } })
    expect(refused.response.status).toBe(401)
    expect(refused.error?.error.code).toBe('API_ERR_UNAUTHORIZED')
  })
})
