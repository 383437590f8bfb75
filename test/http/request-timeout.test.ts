/**
 * A request must arrive whole within TOOLEXEC_REQUEST_TIMEOUT_MS: one whose body (or headers)
 * is dripped slowly is answered 408 API_ERR_REQUEST_TIMEOUT and closed, and nothing of it is
 * stored. A request that has arrived runs as long as it needs: an event stream and a ?wait=
 * poll outlive the timeout.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { openSse } from '../support/sse-client.js'
import { settledRowCounts, startTestServer, type TestServer } from '../support/server.js'

const TIMEOUT_MS = 300
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({ env: { TOOLEXEC_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } })
})
afterAll(async () => {
  await s?.close()
})

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Writes `head`, then `drip` one byte every `gapMs` until the server answers or closes; resolves with what it answered. */
function dripped(head: string, drip: string, gapMs: number): Promise<{ answer: string; sent: number }> {
  const { port } = new URL(s.url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1')
    let answer = ''
    let sent = 0
    let timer: NodeJS.Timeout | undefined
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      answer += chunk
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ answer, sent })
    })
    socket.on('connect', () => {
      socket.write(head)
      timer = setInterval(() => {
        if (sent >= drip.length) {
          clearInterval(timer)
          reject(new Error(`the whole request was sent and answered: ${answer}`))
          return
        }
        if (!socket.destroyed) socket.write(drip[sent++] as string)
      }, gapMs)
    })
  })
}

function bodyOf(answer: string): { error: { code: string; message: string } } {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } }
}

describe('a request that does not arrive in time', () => {
  it('a body dripped a byte at a time is cut with 408 API_ERR_REQUEST_TIMEOUT, and nothing of it is stored', async () => {
    const before = await settledRowCounts(s)
    const body = JSON.stringify({ sessionId: 'dripped', calls: [{ id: 'read-1', name: 'Read', input: { file_path: 'x.txt' } }] })
    const head = `POST /schedules HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const { answer, sent } = await dripped(head, body, 40)
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    expect(bodyOf(answer).error.code).toBe('API_ERR_REQUEST_TIMEOUT')
    expect(bodyOf(answer).error.message).toContain('TOOLEXEC_REQUEST_TIMEOUT_MS')
    expect(sent).toBeLessThan(body.length)
    expect(await settledRowCounts(s)).toEqual(before)
    expect((await s.json('GET', '/sessions/dripped')).status).toBe(404)
  })

  it('headers dripped a byte at a time are cut the same way', async () => {
    const { answer } = await dripped('GET /healthz HTTP/1.1\r\n', `Host: 127.0.0.1\r\nX-Slow: ${'x'.repeat(200)}\r\n\r\n`, 40)
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    expect(bodyOf(answer).error.code).toBe('API_ERR_REQUEST_TIMEOUT')
  })
})

describe('a request that has arrived', () => {
  it('an event stream outlives the timeout and still gets live events', async () => {
    await s.json('POST', '/sessions', { id: 'streaming' })
    const stream = await openSse(s.url, 'streaming')
    expect(stream.status).toBe(200)
    await sleep(TIMEOUT_MS * 4)
    const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 'streaming', createSession: {}, calls: [{ id: 'sleep-1', name: 'Sleep', input: { ms: 1 } }] })
    expect(accepted.status).toBe(202)
    await expect.poll(() => stream.frames.some((frame) => frame.event === 'ScheduleCompleted'), { timeout: 5_000 }).toBe(true)
    await stream.close()
  })

  it('a ?wait= poll held longer than the timeout gets its schedule', async () => {
    const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 'waiting', createSession: {}, calls: [{ id: 'sleep-1', name: 'Sleep', input: { ms: TIMEOUT_MS * 4 } }] })
    const reply = await s.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
    expect(reply.status).toBe(200)
    expect(reply.body.status).toBe('completed')
  })
})

describe('the timeout setting', () => {
  it("starts a server with the largest timeout the setting takes (past Node's own default)", async () => {
    const patient = await startTestServer({ env: { TOOLEXEC_REQUEST_TIMEOUT_MS: '3600000' } })
    try {
      expect((await patient.json('GET', '/healthz')).status).toBe(200)
    } finally {
      await patient.close()
    }
  })
})
