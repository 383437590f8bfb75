/** @module Writes that ask for approval, for the console's browser tests, and a clean slate between tests. */
import { expect } from 'vitest'
import type { PermissionRequestRecord, ScheduleAcceptedReply } from '../../src/contracts/api.js'
import type { TestServer } from './server.js'
import { until } from './until.js'

export type AskingWrite = PermissionRequestRecord & { scheduleId: string }

/** A Write in `sessionId` that asks, and its pending request (with the schedule's id). */
export async function askingWrite(server: TestServer, sessionId: string, callId: string, file: string): Promise<AskingWrite> {
  const calls = [{ id: callId, name: 'Write', input: { file_path: file, content: `${callId}\n` } }]
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, calls })
  expect(accepted.status).toBe(202)
  const pending = async (): Promise<PermissionRequestRecord | undefined> =>
    (await server.json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${encodeURIComponent(sessionId)}`)).body.requests.find((request) => request.callId === callId)
  return { ...(await until(pending, `${callId} to ask`)), scheduleId: accepted.body.scheduleId }
}

/** Denies every pending request: each test starts with nothing pending, whatever the one before left. */
export async function denyEveryPending(server: TestServer): Promise<void> {
  const { requests } = (await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions')).body
  for (const request of requests) await server.json('POST', `/permissions/${request.id}`, { decision: 'deny' })
}
