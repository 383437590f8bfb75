/**
 * The HTTP calls the permission and hook tests make against a real test server: sessions,
 * schedules, pending requests, answers, and a session's events read back from its SSE stream.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { expect } from 'vitest'
import type { CreateSessionBody, PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply } from '../../../src/contracts/api.js'
import { tempDir } from '../permission-tools.js'
import type { TestServer } from '../server.js'
import { dataOf, openSse } from '../sse-client.js'

export type EventData = Record<string, unknown> & { type: string; callId?: string }
export type CallRecord = ScheduleReply['calls'][number]

/** A config file for TOOLEXEC_CONFIG in a temp dir. */
export async function configFile(config: unknown): Promise<string> {
  const file = path.join(await tempDir('config'), 'toolexec.json')
  await writeFile(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2))
  return file
}

export class SessionApi {
  readonly server: TestServer
  #counter = 0

  constructor(server: TestServer) {
    this.server = server
  }

  async session(body: CreateSessionBody = {}): Promise<string> {
    const reply = await this.server.json<{ id: string }>('POST', '/sessions', { id: `ses-${++this.#counter}-${Date.now()}`, ...body })
    expect(reply.status).toBe(201)
    return reply.body.id
  }

  async accept(sessionId: string, calls: { id: string; name: string; input: unknown }[]): Promise<string> {
    const reply = await this.server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls })
    expect(reply.status).toBe(202)
    return reply.body.scheduleId
  }

  async finished(scheduleId: string): Promise<ScheduleReply> {
    const reply = await this.server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)
    expect(['completed', 'stopped', 'cancelled']).toContain(reply.body.status)
    return reply.body
  }

  /** Runs one call that must not ask, and returns its record. */
  async run(sessionId: string, name: string, input: unknown, id = `c${++this.#counter}`): Promise<CallRecord> {
    const done = await this.finished(await this.accept(sessionId, [{ id, name, input }]))
    return done.calls[0] as CallRecord
  }

  /** The session's first pending request, once it is there. */
  async pending(sessionId: string, timeoutMs = 5_000): Promise<PermissionRequestRecord> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const reply = await this.server.json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}&status=pending`)
      const [request] = reply.body.requests
      if (request !== undefined) return request
      if (Date.now() > deadline) throw new Error(`no pending request in ${sessionId}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  answer(permissionId: string, body: Record<string, unknown>): Promise<{ status: number; body: PermissionRequestRecord & { error?: { code: string; message: string; details?: unknown } } }> {
    return this.server.json('POST', `/permissions/${permissionId}`, body)
  }

  /** Runs one call that asks, answers it, and returns the request and the call's record. */
  async runAnswering(sessionId: string, name: string, input: unknown, answer: Record<string, unknown>): Promise<{ request: PermissionRequestRecord; call: CallRecord }> {
    const scheduleId = await this.accept(sessionId, [{ id: `c${++this.#counter}`, name, input }])
    const request = await this.pending(sessionId)
    expect((await this.answer(request.id, answer)).status).toBe(200)
    return { request, call: (await this.finished(scheduleId)).calls[0] as CallRecord }
  }

  /** Every event of the session up to the end of a schedule, replayed from its SSE stream. */
  async events(sessionId: string, scheduleId?: string): Promise<EventData[]> {
    const stream = await openSse(this.server.url, sessionId)
    try {
      await stream.waitFor((frame) => frame.event === 'ScheduleCompleted' && (scheduleId === undefined || dataOf(frame).scheduleId === scheduleId))
      return stream.frames.map((frame) => dataOf<EventData>(frame))
    } finally {
      await stream.close()
    }
  }
}
