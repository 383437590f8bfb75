/**
 * Real hooks for the hook tests: command lines that run the scripts of this folder with bash
 * or node, and a local HTTP hook server that records what it receives.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import { HookError } from '../../../src/hooks/command-hook.js'

export const HOOK_SCRIPTS = path.dirname(fileURLToPath(import.meta.url))

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

/** `bash <script> args...` */
export function bashHook(script: 'guard.sh' | 'context.sh' | 'crash.sh' | 'hang.sh', ...args: string[]): string {
  return ['bash', quote(path.join(HOOK_SCRIPTS, script)), ...args.map(quote)].join(' ')
}

export interface ReplyOptions {
  readonly exitCode?: number
  readonly delayMs?: number
  /** A file the hook writes its input to. */
  readonly record?: string
}

/** `node reply.mjs <reply> ...`: answers `reply` (an object is sent as JSON). */
export function nodeHook(reply: unknown, options: ReplyOptions = {}): string {
  const text = typeof reply === 'string' ? reply : JSON.stringify(reply)
  const args = [text, String(options.exitCode ?? 0), String(options.delayMs ?? 0)]
  if (options.record !== undefined) args.push(options.record)
  return ['node', quote(path.join(HOOK_SCRIPTS, 'reply.mjs')), ...args.map(quote)].join(' ')
}

export interface ReceivedHook {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: Record<string, unknown>
}

export interface HookReply {
  readonly status?: number
  readonly body?: unknown
  readonly delayMs?: number
}

export interface HookServer {
  readonly url: string
  readonly received: ReceivedHook[]
  /** The reply for a path; the default is 200 with an empty body. */
  on(route: string, reply: HookReply | ((body: Record<string, unknown>) => HookReply)): void
  close(): Promise<void>
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      text += chunk
    })
    request.on('end', () => resolve(text))
    request.on('error', reject)
  })
}

/** An HTTP hook server on 127.0.0.1:0. */
export async function startHookServer(): Promise<HookServer> {
  const routes = new Map<string, HookReply | ((body: Record<string, unknown>) => HookReply)>()
  const received: ReceivedHook[] = []
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void readBody(request).then((text) => {
      const body = (text.length > 0 ? JSON.parse(text) : {}) as Record<string, unknown>
      const route = request.url ?? '/'
      received.push({ path: route, headers: request.headers, body })
      const configured = routes.get(route) ?? {}
      const reply = typeof configured === 'function' ? configured(body) : configured
      const send = (): void => {
        const payload = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
        response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
        response.end(payload)
      }
      if ((reply.delayMs ?? 0) <= 0) return send()
      const timer = setTimeout(() => {
        timers.delete(timer)
        send()
      }, reply.delayMs)
      timers.add(timer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    on: (route, reply) => void routes.set(route, reply),
    close: () => {
      for (const timer of timers) clearTimeout(timer)
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The HookError a hook run rejects with; fails the test when it resolves or rejects otherwise. */
export async function hookFailure(promise: Promise<unknown>): Promise<HookError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(HookError)
  return error as HookError
}
