/** Requests to a test server as a browser's would arrive (its own Host), and a session whose one call runs until cancelled. */
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { ErrorReply } from '../../src/contracts/api.js'
import type { TestServer } from './server.js'
import { until } from './until.js'

/** `app.inject` with the server's own Host, as a client of its URL sends it. */
export function inject(server: TestServer, options: InjectOptions): Promise<LightMyRequestResponse> {
  return server.app.inject({ ...options, headers: { host: new URL(server.url).host, ...options.headers } })
}

export const codeOf = (reply: LightMyRequestResponse): string | undefined => (reply.json<ErrorReply>() as Partial<ErrorReply>).error?.code

/** A session whose one call (the test tool Sleep) sleeps until cancelled; resolves with its schedule once the call runs. */
export async function runningSession(server: TestServer, id: string, headers: Record<string, string> = {}): Promise<string> {
  expect((await server.json('POST', '/sessions', { id }, headers)).status).toBe(201)
  const accepted = await server.json<{ scheduleId: string }>('POST', '/schedules', { sessionId: id, createSession: {}, calls: [{ id: 'nap', name: 'Sleep', input: { ms: 60_000 } }] }, headers)
  expect(accepted.status).toBe(202)
  await until(async () => ((await server.json<{ status: string }>('GET', `/sessions/${id}`, undefined, headers)).body.status === 'running' ? true : undefined), 'the call to run')
  return accepted.body.scheduleId
}

export async function scheduleStatus(server: TestServer, scheduleId: string, headers: Record<string, string> = {}): Promise<string> {
  return (await server.json<{ status: string }>('GET', `/schedules/${scheduleId}`, undefined, headers)).body.status
}
