import { appendFileSync, renameSync, truncateSync } from 'node:fs'
import net from 'node:net'
import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { defineTool } from '../../src/contracts/tool-entry.js'
import { DEFAULT_TEST_TOOLS, startTestServer, type TestServer } from '../support/server.js'
import { dumpTool } from '../support/tools.js'
import { textOf } from '../support/model-text.js'

/** Returns one image block with the media type it is given, as an MCP or HTTP tool may. */
const pictureTool = defineTool({
  name: 'Picture',
  description: 'Returns an image block with the given media type',
  inputSchema: Type.Object({ mediaType: Type.String() }),
  readOnly: true,
  destructive: false,
  concurrentSafe: true,
  permission: { sideEffectScope: 'none' },
  handler: (input) => Promise.resolve([{ type: 'image' as const, mediaType: input.mediaType, data: Buffer.from('<script>alert(1)</script>').toString('base64') }]),
})

// Multi-byte text so that byte ranges and character counts differ.
const TEXT = Array.from({ length: 300 }, (_, i) => `line ${i}: héllo wörld ✓\n`).join('')
const BYTES = Buffer.from(TEXT, 'utf8')
const SIZE = BYTES.byteLength

/** Every byte the server sends for one GET on a connection it closes. */
function rawGet(target: URL): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = net.connect(Number(target.port), target.hostname, () => {
      socket.write(`GET ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\nconnection: close\r\n\r\n`)
    })
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', () => resolve(Buffer.concat(chunks)))
    socket.on('error', reject)
  })
}

let s: TestServer
let sessionId: string
let artifactId: string
let persistedPath: string

beforeAll(async () => {
  s = await startTestServer({ tools: [...DEFAULT_TEST_TOOLS, dumpTool, pictureTool] })
  sessionId = 'ses-artifacts'
  const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: 'dump-1', name: 'Dump', input: { text: TEXT } }] })
  const done = await s.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
  const serialization = done.body.calls[0]?.result?.serialization
  expect(serialization).toMatchObject({ strategy: 'artifact', truncated: true, originalBytes: SIZE })
  const uri = serialization?.artifactUri ?? ''
  expect(uri).toMatch(/^toolexec-artifact:\/\/ses-artifacts\/tool-result-[0-9a-f-]{36}$/)
  artifactId = decodeURIComponent(uri.split('/').pop() ?? '')
  persistedPath = serialization?.persistedPath ?? ''
  expect(textOf(done.body.calls[0]?.modelContent)).toContain(persistedPath)
})

afterAll(async () => {
  await s.close()
})

const url = (session: string, id: string): string => `${s.url}/artifacts/${encodeURIComponent(session)}/${encodeURIComponent(id)}`

describe('GET /artifacts/:sessionId/:artifactId', () => {
  it('R36 serves the full bytes of an artifact with its media type and length', async () => {
    const response = await fetch(url(sessionId, artifactId))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(response.headers.get('content-length')).toBe(String(SIZE))
    expect(response.headers.get('accept-ranges')).toBe('bytes')
    expect(Buffer.from(await response.arrayBuffer()).equals(BYTES)).toBe(true)
  })

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=7-7', 7, 7],
    ['bytes=100-', 100, SIZE - 1],
    ['bytes=-25', SIZE - 25, SIZE - 1],
    [`bytes=${SIZE - 3}-${SIZE * 2}`, SIZE - 3, SIZE - 1],
    [`bytes=-${SIZE * 2}`, 0, SIZE - 1],
  ])('R36 serves Range %s as 206 with Content-Range and exactly those bytes', async (range, start, end) => {
    const response = await fetch(url(sessionId, artifactId), { headers: { range } })
    expect(response.status).toBe(206)
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${SIZE}`)
    expect(response.headers.get('content-length')).toBe(String(end - start + 1))
    expect(Buffer.from(await response.arrayBuffer()).equals(BYTES.subarray(start, end + 1))).toBe(true)
  })

  it.each([`bytes=${SIZE}-`, `bytes=${SIZE + 10}-${SIZE + 20}`, 'bytes=9-3', 'bytes=-0', 'items=0-1'])(
    'replies 416 in the error format with Content-Range bytes */size for Range %s',
    async (range) => {
      const response = await fetch(url(sessionId, artifactId), { headers: { range } })
      expect(response.status).toBe(416)
      expect(response.headers.get('content-range')).toBe(`bytes */${SIZE}`)
      const body = (await response.json()) as ErrorReply
      expect(body.error).toEqual({ code: 'API_ERR_RANGE', message: `Range ${range} cannot be satisfied for ${SIZE} bytes` })
    },
  )

  it.each([
    ['an unknown artifact id', () => [sessionId, 'tool-result-00000000-0000-0000-0000-000000000000']],
    ['an artifact asked for under another session', () => ['another-session', artifactId]],
  ])('replies 404 in the error format for %s', async (_case, ids) => {
    const [session, id] = ids() as [string, string]
    const response = await fetch(url(session, id))
    expect(response.status).toBe(404)
    const body = (await response.json()) as ErrorReply
    expect(body.error).toEqual({ code: 'API_ERR_ARTIFACT_NOT_FOUND', message: `Artifact ${id} not found in session ${session}` })
  })

  it.each([
    ['not a valid header value', 'pic-1', 'image/png\r\nx-injected: 1', 'application/octet-stream'],
    ['not a media type at all', 'pic-2', 'a picture', 'application/octet-stream'],
    ['a type a browser would run', 'pic-3', 'text/html', 'text/html'],
  ])('serves an image artifact whose tool-given media type is %s as inert bytes, without a 5xx', async (_case, callId, mediaType, served) => {
    const accepted = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: callId, name: 'Picture', input: { mediaType } }] })
    const done = await s.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
    const uri = JSON.stringify(done.body.calls[0]?.modelContent).match(/toolexec-artifact:\/\/[^"]+/)?.[0] ?? ''
    const response = await fetch(url(sessionId, decodeURIComponent(uri.split('/').pop() ?? '')))
    expect(response.status).toBe(200)
    expect(response.headers.get('x-injected')).toBeNull()
    expect(response.headers.get('content-type')).toBe(served)
    // Sandboxed, the bytes cannot run as a page of the API's origin even when a browser renders them.
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox")
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await response.text()).toBe('<script>alert(1)</script>')
  })

  it('R36 keeps the artifact under <dataDir>/cli/artifacts/<session>/ and records it', async () => {
    expect(persistedPath.startsWith(`${s.dataDir}/cli/artifacts/ses-artifacts/dump-1-${artifactId}`)).toBe(true)
    expect(await s.runtime.store.artifacts.get(sessionId, artifactId)).toMatchObject({ callId: 'dump-1', bytes: SIZE, retention: 'session', path: persistedPath })
  })

  it('replies 404 API_ERR_ARTIFACT_FILE_MISSING, not a cut stream, when the recorded file cannot be read here', async () => {
    const moved = `${persistedPath}.moved`
    renameSync(persistedPath, moved)
    try {
      for (const headers of [{}, { range: 'bytes=0-9' }] as Record<string, string>[]) {
        const response = await fetch(url(sessionId, artifactId), { headers })
        expect(response.status).toBe(404)
        const body = (await response.json()) as ErrorReply
        expect(body.error.code).toBe('API_ERR_ARTIFACT_FILE_MISSING')
        expect(body.error.message).toBe(
          `Artifact ${artifactId} of session ${sessionId} is recorded, but its file cannot be read on this server (ENOENT): the servers of a cluster share one TOOLEXEC_ARTIFACT_DIR`,
        )
      }
    } finally {
      renameSync(moved, persistedPath)
    }
    expect((await fetch(url(sessionId, artifactId))).status).toBe(200)
  })

  it('R36 serves exactly the recorded bytes even when the file grew after it was recorded (a process left writing)', async () => {
    appendFileSync(persistedPath, 'written later by a process the command left behind\n')
    try {
      // Read the raw connection to its end: a body longer than its content-length shows here.
      const raw = await rawGet(new URL(url(sessionId, artifactId)))
      const body = raw.subarray(raw.indexOf('\r\n\r\n') + 4)
      expect(raw.toString('latin1')).toContain(`content-length: ${SIZE}`)
      expect(body.equals(BYTES)).toBe(true)
    } finally {
      truncateSync(persistedPath, SIZE)
    }
  })
})
