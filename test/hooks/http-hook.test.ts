import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HookPayload } from '../../src/contracts/ports.js'
import { runHttpHook } from '../../src/hooks/http-hook.js'
import { hookFailure as failure, startHookServer, type HookServer } from '../support/hook-scripts/hooks.js'

let server: HookServer

beforeAll(async () => {
  server = await startHookServer()
})

afterAll(async () => {
  await server.close()
})

const NEVER = new AbortController().signal
const PAYLOAD: HookPayload = {
  hookEventName: 'PreToolUse',
  sessionId: 'ses-http',
  callId: 'call-7',
  toolName: 'WebFetch',
  toolInput: { url: 'https://example.com' },
  workspace: '/work/project',
}

const hookAt = (route: string, extra: { headers?: Record<string, string>; timeoutMs?: number } = {}) => ({ type: 'http' as const, url: `${server.url}${route}`, ...extra })

describe('HTTP hooks', () => {
  it('R13 POSTs the hook input as JSON with the configured headers', async () => {
    server.on('/input', { body: {} })
    await runHttpHook(hookAt('/input', { headers: { authorization: 'Bearer hook-secret', 'x-team': 'core' } }), 'PreToolUse', PAYLOAD, NEVER)
    const request = server.received.find((entry) => entry.path === '/input')
    expect(request?.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer hook-secret', 'x-team': 'core' })
    expect(request?.body).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: 'ses-http',
      tool_use_id: 'call-7',
      tool_name: 'WebFetch',
      tool_input: { url: 'https://example.com' },
      cwd: '/work/project',
      toolInput: { url: 'https://example.com' },
    })
  })

  it.each([
    ['top-level fields', { permissionDecision: 'ask', reason: 'check the domain', additionalContext: 'ctx' }, { permissionDecision: 'ask', reason: 'check the domain', additionalContext: 'ctx' }],
    ['hookSpecificOutput', { hookSpecificOutput: { permissionDecision: 'allow', permissionDecisionReason: 'known domain' } }, { permissionDecision: 'allow', reason: 'known domain' }],
    ['an updatedInput', { updatedInput: { url: 'https://example.com/' } }, { updatedInput: { url: 'https://example.com/' } }],
  ])('R14 reads a 2xx JSON reply with %s', async (_case, body, expected) => {
    server.on('/answer', { body })
    expect(await runHttpHook(hookAt('/answer'), 'PreToolUse', PAYLOAD, NEVER)).toEqual(expected)
  })

  it('R16 reads a PermissionRequest decision', async () => {
    server.on('/permission', { body: { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'not today' } } } })
    expect(await runHttpHook(hookAt('/permission'), 'PermissionRequest', { ...PAYLOAD, hookEventName: 'PermissionRequest' }, NEVER)).toEqual({ decision: 'deny', message: 'not today' })
  })

  it('R14 an empty 2xx reply is no answer', async () => {
    server.on('/empty', { status: 204 })
    expect(await runHttpHook(hookAt('/empty'), 'PreToolUse', PAYLOAD, NEVER)).toBeUndefined()
  })

  it.each([
    ['a non-2xx status', { status: 503, body: 'overloaded' }, 'Hook answered HTTP 503: overloaded'],
    ['a reply that is not JSON', { body: 'yes please' }, 'Hook answered invalid JSON: yes please'],
  ])('R14 %s is a hook error', async (_case, reply, message) => {
    server.on('/bad', reply)
    expect((await failure(runHttpHook(hookAt('/bad'), 'PreToolUse', PAYLOAD, NEVER))).message).toBe(message)
  })

  it('R14 a reply larger than 1 MiB is a hook error', async () => {
    server.on('/huge', { body: { additionalContext: 'x'.repeat(1024 * 1024 + 10) } })
    expect((await failure(runHttpHook(hookAt('/huge'), 'PreToolUse', PAYLOAD, NEVER))).message).toBe('Hook reply is larger than 1048576 bytes')
  })

  it('R14 a server that does not answer in time is a timed-out hook error', async () => {
    server.on('/slow', { delayMs: 2_000, body: { permissionDecision: 'allow' } })
    const started = Date.now()
    const error = await failure(runHttpHook(hookAt('/slow', { timeoutMs: 200 }), 'PreToolUse', PAYLOAD, NEVER))
    expect(error.timedOut).toBe(true)
    expect(error.message).toBe('Hook timed out after 200ms')
    expect(Date.now() - started).toBeLessThan(1_500)
  })

  it('a reply whose body stalls after its headers is a timed-out hook error too', async () => {
    const stalling = http.createServer((request, response) => {
      request.resume()
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"permissionDecision":')
    })
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/hook`
      const error = await failure(runHttpHook({ type: 'http', url, timeoutMs: 200 }, 'PreToolUse', PAYLOAD, NEVER))
      expect(error.timedOut).toBe(true)
      expect(error.message).toBe('Hook timed out after 200ms')
    } finally {
      stalling.closeAllConnections()
      stalling.close()
    }
  })

  it('R23 an aborted call stops the request, and nobody listening is a hook error', async () => {
    server.on('/slow', { delayMs: 2_000 })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const aborted = await failure(runHttpHook(hookAt('/slow'), 'PreToolUse', PAYLOAD, controller.signal))
    expect(aborted.timedOut).toBe(false)
    const refused = await failure(runHttpHook({ type: 'http', url: 'http://127.0.0.1:1/hook' }, 'PreToolUse', PAYLOAD, NEVER))
    expect(refused.message).toMatch(/^Hook request failed: /)
  })
})
