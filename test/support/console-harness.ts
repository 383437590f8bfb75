/**
 * What the web console's browser tests run against: the real server (`src/main.ts`, a child
 * process) with a token, a data directory and a workspace of its own, that can be killed
 * with SIGKILL and started again on the same data directory and port (the page keeps its
 * origin and reconnects to it), and helpers that call its API with the token.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { CallRecord, PermissionRequestRecord, ProjectRule, ScheduleAcceptedReply, ScheduleCallInput, ScheduleReply, Session } from '../../src/contracts/api.js'
import { startMain, type MainChild } from './main-process.js'
import { openSse } from './sse-client.js'
import { tempDirSync } from './temp-dirs.js'
import { until } from './until.js'

export const CONSOLE_TOKEN = 'console-token-Hq7vR2nX9w'

/** An answer of the API: its status and its JSON body (null when it has none). */
export interface ApiReply<T = unknown> {
  readonly status: number
  readonly body: T
}

/** One event as the server stores and replays it. */
export interface StoredEvent {
  readonly id: string
  readonly type: string
  readonly data: Record<string, unknown>
}

export class ConsoleServer {
  readonly dataDir = tempDirSync('console-data')
  readonly workspace = tempDirSync('console-workspace')
  #child: MainChild | undefined
  #url: string | undefined

  /** Its URL; after a kill, the one it had (and will have again once started on the same port). */
  get url(): string {
    if (this.#url === undefined) throw new Error('the server has not started')
    return this.#url
  }

  get port(): string {
    return new URL(this.url).port
  }

  /** Starts it on a free port the first time, on the same port after a kill. */
  async start(port = '0'): Promise<void> {
    this.#child = await startMain(this.dataDir, 1_000, { TOOLEXEC_TOKEN: CONSOLE_TOKEN, TOOLEXEC_WORKSPACE: this.workspace, PORT: port })
    if (this.#url !== undefined && this.#child.url !== this.#url) throw new Error(`restarted on ${this.#child.url}, not ${this.#url}`)
    this.#url = this.#child.url
  }

  /** kill -9, then a new server on the same data directory and port. */
  async killAndRestart(): Promise<void> {
    const port = this.port
    await this.kill()
    await this.start(port)
  }

  async kill(): Promise<void> {
    const child = this.#child
    if (child === undefined) return
    this.#child = undefined
    child.child.kill('SIGKILL')
    await child.exited
  }

  /** A file in the workspace, for a Read to find. */
  writeWorkspaceFile(name: string, content: string): string {
    const file = path.join(this.workspace, name)
    writeFileSync(file, content)
    return file
  }

  async api<T = unknown>(method: string, route: string, body?: unknown, token = CONSOLE_TOKEN): Promise<ApiReply<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${this.url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await response.text()
    return { status: response.status, body: (text.length > 0 ? JSON.parse(text) : null) as T }
  }

  /** The API's answer, failing with its body when the status is not `expected`. */
  async ok<T>(method: string, route: string, body: unknown, expected: number): Promise<T> {
    const reply = await this.api<T>(method, route, body)
    if (reply.status !== expected) throw new Error(`${method} ${route}: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body
  }

  postSchedule(sessionId: string, calls: readonly ScheduleCallInput[]): Promise<ScheduleAcceptedReply> {
    return this.ok('POST', '/schedules', { sessionId, createSession: {}, calls }, 202)
  }

  /** The schedule once it ended (or as it stands after `waitSeconds`). */
  schedule(scheduleId: string, waitSeconds = 0): Promise<ScheduleReply> {
    return this.ok('GET', `/schedules/${encodeURIComponent(scheduleId)}?wait=${waitSeconds}`, undefined, 200)
  }

  async call(scheduleId: string, callId: string): Promise<CallRecord> {
    const schedule = await this.schedule(scheduleId)
    const call = schedule.calls.find((record) => record.id === callId)
    if (call === undefined) throw new Error(`no call ${callId} in ${scheduleId}`)
    return call
  }

  session(sessionId: string): Promise<Session> {
    return this.ok('GET', `/sessions/${encodeURIComponent(sessionId)}`, undefined, 200)
  }

  async sessions(): Promise<Session[]> {
    return (await this.ok<{ sessions: Session[] }>('GET', '/sessions?limit=500', undefined, 200)).sessions
  }

  async pendingRequests(sessionId?: string): Promise<PermissionRequestRecord[]> {
    const query = sessionId === undefined ? 'status=pending' : `sessionId=${encodeURIComponent(sessionId)}&status=pending`
    return (await this.ok<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?${query}`, undefined, 200)).requests
  }

  /** Waits until `callId` of `sessionId` asks, and returns its request. */
  pendingRequestFor(sessionId: string, callId: string, timeoutMs = 15_000): Promise<PermissionRequestRecord> {
    return until(async () => (await this.pendingRequests(sessionId)).find((request) => request.callId === callId), `a request for ${callId}`, timeoutMs, 50)
  }

  async rules(): Promise<ProjectRule[]> {
    return (await this.ok<{ rules: ProjectRule[] }>('GET', '/permissions/rules', undefined, 200)).rules
  }

  /** An artifact's bytes, as GET /artifacts gives them. */
  async artifact(sessionId: string, artifactId: string): Promise<Buffer> {
    const response = await fetch(`${this.url}/artifacts/${encodeURIComponent(sessionId)}/${encodeURIComponent(artifactId)}`, {
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    })
    if (response.status !== 200) throw new Error(`artifact ${artifactId}: ${response.status}`)
    return Buffer.from(await response.arrayBuffer())
  }

  /** Every event of the session as the server replays it from its store, id by id. */
  async history(sessionId: string): Promise<StoredEvent[]> {
    const { lastEventId } = await this.session(sessionId)
    const stream = await openSse(this.url, sessionId, { accessToken: CONSOLE_TOKEN })
    try {
      if (lastEventId > 0) await stream.waitForId(lastEventId)
    } finally {
      await stream.close()
    }
    return stream.frames.map((frame) => ({ id: frame.id ?? '', type: frame.event, data: JSON.parse(frame.data) as Record<string, unknown> }))
  }
}

/** The text a `model-content` block shows for a call's modelContent: a string as is, blocks one after another. */
export function modelContentText(modelContent: CallRecord['modelContent']): string {
  if (modelContent === undefined) throw new Error('the call has no modelContent yet')
  if (typeof modelContent === 'string') return modelContent
  return modelContent.map((block) => ('text' in block && typeof block.text === 'string' ? block.text : '')).join('')
}

/** The artifact a result saved its whole output to: `toolexec-artifact://<sessionId>/<artifactId>`. */
export function artifactOf(call: CallRecord): { sessionId: string; artifactId: string } {
  const serialization = (call.result as { serialization?: { artifactUri?: string } } | undefined)?.serialization
  const match = /^toolexec-artifact:\/\/([^/]+)\/(.+)$/.exec(serialization?.artifactUri ?? '')
  if (match?.[1] === undefined || match[2] === undefined) throw new Error(`call ${call.id} saved no artifact: ${JSON.stringify(call.result)}`)
  return { sessionId: decodeURIComponent(match[1]), artifactId: decodeURIComponent(match[2]) }
}
