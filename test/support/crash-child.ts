/**
 * Driving a child-process toolexec server for the crash test: spawn it, talk JSON to it,
 * read a session's whole event stream, and kill it with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { databaseUrlOf } from './test-database.js'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const ENTRY = 'test/support/crash-server.ts'
const START_TIMEOUT_MS = 15_000

export interface CrashChild {
  readonly url: string
  readonly process: ChildProcess
  /** What the child wrote to stderr so far (its log lines, at CRASH_LOG_LEVEL). */
  log(): string
  json<T = unknown>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>
  /** SIGKILL, then wait for the process to be gone. */
  kill(): Promise<void>
}

export interface SseFrame {
  readonly id: number
  readonly event: string
  readonly data: Record<string, unknown>
}

export interface CrashServerOptions {
  /** The database to store in; by default the data directory's own (postgres project), or none (SQLite). */
  readonly databaseUrl?: string | undefined
  /** More of the child's environment (CRASH_NODE_ID, CRASH_LEASE_MS, CRASH_WORKSPACE, CRASH_LOG_LEVEL). */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/** In the postgres test project the child stores in the data directory's database, the same one on each restart. */
export async function spawnCrashServer(dataDir: string, markerDir: string, options: CrashServerOptions = {}): Promise<CrashChild> {
  const databaseUrl = options.databaseUrl ?? (await databaseUrlOf(dataDir))
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, dataDir, markerDir, ...(databaseUrl === undefined ? [] : [databaseUrl])], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', ...options.env },
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const { url, backend } = await readListening(child)
  const expected = databaseUrl === undefined ? 'sqlite' : 'postgres'
  if (backend !== expected) {
    child.kill('SIGKILL')
    throw new Error(`the crash server stores in ${backend}, not ${expected}`)
  }
  return {
    url,
    process: child,
    log: () => stderr,
    json: (method, route, body) => sendJson(url, method, route, body),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}

/** The line the child prints once listening: its URL and the backend it stores in. */
function readListening(child: ChildProcess): Promise<{ url: string; backend: string }> {
  return new Promise((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => fail(new Error(`crash server did not start in ${START_TIMEOUT_MS} ms: ${stderr}`)), START_TIMEOUT_MS)
    function fail(error: Error): void {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(error)
    }
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    child.stdout?.on('data', function onStdout(chunk: Buffer) {
      stdout += chunk.toString('utf8')
      const newline = stdout.indexOf('\n')
      if (newline < 0) return
      clearTimeout(timer)
      child.stdout?.off('data', onStdout)
      resolve(JSON.parse(stdout.slice(0, newline)) as { url: string; backend: string })
    })
    child.once('exit', (code, signal) => fail(new Error(`crash server exited before listening (${code ?? signal}): ${stderr}`)))
  })
}

async function sendJson<T>(url: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const init: RequestInit = { method }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { 'content-type': 'application/json' }
  }
  const response = await fetch(`${url}${route}`, init)
  const text = await response.text()
  return { status: response.status, body: (text.length > 0 ? JSON.parse(text) : undefined) as T }
}

/** Every stored event of a session from the start (?after=0), up to and including `lastSeq`. */
export async function readAllEvents(url: string, sessionId: string, lastSeq: number, timeoutMs = 5_000): Promise<SseFrame[]> {
  const frames: SseFrame[] = []
  if (lastSeq === 0) return frames
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new Error(`events of ${sessionId} stopped before seq ${lastSeq}`)), timeoutMs)
  try {
    const response = await fetch(`${url}/sessions/${encodeURIComponent(sessionId)}/events?after=0`, { signal: controller.signal })
    if (response.body === null) throw new Error('no event stream')
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true })
      let end = buffered.indexOf('\n\n')
      while (end >= 0) {
        const frame = parseFrame(buffered.slice(0, end))
        buffered = buffered.slice(end + 2)
        if (frame !== undefined) frames.push(frame)
        end = buffered.indexOf('\n\n')
      }
      if ((frames[frames.length - 1]?.id ?? 0) >= lastSeq) break
    }
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
  return frames
}

/** One SSE frame; heartbeat comments have no id and are skipped. */
function parseFrame(text: string): SseFrame | undefined {
  let id: number | undefined
  let event = 'message'
  let data = ''
  for (const line of text.split('\n')) {
    if (line.startsWith('id: ')) id = Number(line.slice(4))
    else if (line.startsWith('event: ')) event = line.slice(7)
    else if (line.startsWith('data: ')) data += line.slice(6)
  }
  if (id === undefined) return undefined
  return { id, event, data: JSON.parse(data) as Record<string, unknown> }
}
