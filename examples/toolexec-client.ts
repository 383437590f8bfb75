/**
 * The toolexec side of the example agent loops: one fetch helper, a session, and waiting for a
 * schedule's results while answering its approval requests (from the terminal, or by --approve).
 */
import { createInterface } from 'node:readline/promises'

const TOOLEXEC_URL = process.env['TOOLEXEC_URL'] ?? 'http://127.0.0.1:8787'
const TOOLEXEC_TOKEN = process.env['TOOLEXEC_TOKEN']

export class ToolexecReplyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** One toolexec request, JSON in and out; any reply but 2xx is thrown with its status and body. */
export async function toolexec<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {}
  if (TOOLEXEC_TOKEN) headers['authorization'] = `Bearer ${TOOLEXEC_TOKEN}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${TOOLEXEC_URL}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!response.ok) throw new ToolexecReplyError(response.status, `toolexec ${method} ${route}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/** An interactive session in `workspace` (default permission mode: writes and commands ask). */
export async function createSession(workspace: string): Promise<string> {
  const session = await toolexec<{ id: string }>('POST', '/sessions', { workspace, interactive: true })
  return session.id
}

export type Approve = 'allow' | 'deny' | undefined
export type ResultFormat = 'anthropic' | 'openai-chat' | 'openai-responses'
/** What every `format` reply has; each format adds its payload (`message`, `messages`, `input`) once `done`. */
export interface FormattedSchedule {
  done: boolean
  stopTurn: boolean
  turnControl?: { reason?: string }
}

/**
 * Waits until every call of the schedule has ended, answering each approval request on the
 * way: with `approve` when given, else by asking on the terminal.
 */
export async function waitForResults<T>(sessionId: string, scheduleId: string, format: ResultFormat, approve: Approve): Promise<FormattedSchedule & T> {
  for (;;) {
    await answerApprovals(sessionId, approve)
    const schedule = await toolexec<FormattedSchedule & T>('GET', `/schedules/${scheduleId}?wait=1&format=${format}`)
    if (schedule.done) return schedule
  }
}

interface PermissionRequest {
  id: string
  toolName: string
  input: unknown
  reason: string
}

async function answerApprovals(sessionId: string, approve: Approve): Promise<void> {
  const { requests } = await toolexec<{ requests: PermissionRequest[] }>('GET', `/permissions?sessionId=${sessionId}&status=pending`)
  for (const request of requests) {
    const decision = approve ?? (await askOnTerminal(request))
    try {
      await toolexec('POST', `/permissions/${request.id}`, { decision, sessionId })
      console.log(`[toolexec] ${request.toolName}: ${decision}`)
    } catch (error) {
      // 409: decided otherwise meanwhile (another client, or the request timed out).
      if (!(error instanceof ToolexecReplyError && error.status === 409)) throw error
      console.log(`[toolexec] ${request.toolName}: already decided`)
    }
  }
}

let terminal: { prompt: ReturnType<typeof createInterface>; closed: Promise<string> } | undefined

async function askOnTerminal(request: PermissionRequest): Promise<'allow' | 'deny'> {
  if (terminal === undefined) {
    const prompt = createInterface({ input: process.stdin, output: process.stdout })
    // Once stdin ends no answer can come: that is a no.
    terminal = { prompt, closed: new Promise((resolve) => prompt.once('close', () => resolve(''))) }
  }
  const question = `Allow ${printable(`${request.toolName} ${JSON.stringify(request.input)}? (${request.reason})`)} [y/N] `
  const answer = await Promise.race([terminal.prompt.question(question), terminal.closed])
  return /^y(es)?$/i.test(answer.trim()) ? 'allow' : 'deny'
}

/** For texts the model chose: control characters are shown escaped, never sent to the terminal. */
export function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Lets the process exit once the loop is over (an open terminal prompt would hold it). */
export function closeTerminal(): void {
  terminal?.prompt.close()
}
