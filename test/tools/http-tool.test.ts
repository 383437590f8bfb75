import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasCode } from '../../src/contracts/errors.js'
import type { PermissionMode } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import type { HttpToolDefinition } from '../../src/contracts/tool-config.js'
import { isErrorForHistory } from '../../src/executor/history.js'
import { declaredFlags } from '../../src/executor/tool-flags.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createHttpTool, isHttpTool, MAX_REPLY_BYTES } from '../../src/tools/http-tool/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { PIXEL_PNG_BASE64 } from '../support/mcp-server.js'
import { readTool } from '../support/tools.js'
import { tempDir } from '../support/temp-dirs.js'
import { createTestExecutor } from '../support/executor.js'
import { textOf } from '../support/model-text.js'

type Route = (body: string, request: IncomingMessage, response: ServerResponse) => void

const closedEarly: string[] = []

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
}

/** Endpoints that answer each way an HTTP tool's endpoint can. */
const ROUTES: Record<string, Route> = {
  '/echo': (body, request, response) => json(response, 200, { content: JSON.stringify({ body: JSON.parse(body) as unknown, key: request.headers['x-api-key'] ?? null }) }),
  '/blocks': (_, __, response) =>
    json(response, 200, {
      content: [
        { type: 'image', data: PIXEL_PNG_BASE64, mimeType: 'image/png' },
        { type: 'text', text: 'a pixel' },
      ],
    }),
  '/text-blocks': (_, __, response) =>
    json(response, 200, {
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    }),
  '/is-error': (_, __, response) => json(response, 200, { content: 'no such record', isError: true }),
  '/empty': (_, __, response) => json(response, 200, { content: '' }),
  '/big': (_, __, response) => json(response, 200, { content: 'x'.repeat(150_000) }),
  '/status-500': (_, __, response) => response.writeHead(500).end('database\n  down'),
  '/not-json': (_, __, response) => response.writeHead(200).end('hello'),
  '/bad-shape': (_, __, response) => json(response, 200, { content: 5 }),
  '/bad-block': (_, __, response) => json(response, 200, { content: [{ type: 'text', text: 1 }] }),
  '/huge': (_, __, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    let sent = 0
    const push = (): void => {
      while (sent <= MAX_REPLY_BYTES && !response.destroyed) {
        sent += chunk.length
        if (!response.write(chunk)) return void response.once('drain', push)
      }
      response.end()
    }
    push()
  },
  '/hang': (_, request, response) => {
    response.on('close', () => {
      if (!response.writableEnded) closedEarly.push(String(request.headers['x-call']))
    })
  },
}

let endpoint: Server
let base: string
let deadUrl: string
let dataDir: string

beforeAll(async () => {
  dataDir = await tempDir('http-tool')
  endpoint = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => (ROUTES[request.url ?? ''] ?? ((_, __, r) => r.writeHead(404).end()))(Buffer.concat(chunks).toString('utf8'), request, response))
  })
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`
  await new Promise((resolve) => closed.close(resolve))
})

afterAll(async () => {
  endpoint.closeAllConnections()
  await new Promise((resolve) => endpoint.close(resolve))
})

function definition(name: string, route: string, extra: Partial<HttpToolDefinition> = {}): HttpToolDefinition {
  return {
    name,
    description: `calls ${route}`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false },
    url: route.startsWith('http') ? route : `${base}${route}`,
    ...extra,
  }
}

let counter = 0
async function run(def: HttpToolDefinition, input: unknown = { q: 'x' }, mode: PermissionMode = 'bypassPermissions', signal?: AbortSignal): Promise<ToolExecutionResult> {
  counter += 1
  const executor = createTestExecutor({ registry: new InMemoryToolRegistry([createHttpTool(def)]), artifacts: new FsArtifactStore({ dataDir }) })
  return executor.execute({ id: `call-${counter}`, name: def.name, input }, { sessionId: 'http-session', permissionMode: mode, signal })
}

describe('client-defined HTTP tools', () => {
  it('POSTs {callId, sessionId, input} as JSON with the configured headers and returns the text content', async () => {
    const result = await run(definition('echo', '/echo', { headers: { 'X-Api-Key': 'k1' } }), { q: 'hello' })
    expect(result.status).toBe('succeeded')
    expect(JSON.parse(textOf(result.modelContent))).toEqual({ body: { callId: `call-${counter}`, sessionId: 'http-session', input: { q: 'hello' } }, key: 'k1' })
    expect(result.isError).toBe(false)
  })

  it('joins text blocks into one text and saves image blocks as artifacts (R36)', async () => {
    expect((await run(definition('texts', '/text-blocks'))).modelContent).toBe('one\ntwo')
    const result = await run(definition('picture', '/blocks'))
    const blocks = result.modelContent
    if (!Array.isArray(blocks) || blocks[0]?.type !== 'image' || blocks[0].path === undefined) throw new Error('expected a saved image block')
    expect(blocks[1]).toEqual({ type: 'text', text: 'a pixel' })
    expect((await readFile(blocks[0].path)).toString('base64')).toBe(PIXEL_PNG_BASE64)
  })

  it('R28 keeps an isError reply as a success that history treats as an error', async () => {
    const result = await run(definition('refuse', '/is-error'))
    expect([result.status, result.modelContent, isErrorForHistory(result)]).toEqual(['succeeded', 'no such record', true])
  })

  it('R31 reports empty content as completed with no output', async () => {
    expect((await run(definition('quiet', '/empty'))).modelContent).toBe('(quiet completed with no output)')
  })

  it('R32 applies the declared result budget', async () => {
    const budget = { maxModelBytes: 1_000, maxInlineBytes: 1_000, strategy: 'truncate', previewDirection: 'tail' } as const
    const result = await run(definition('big', '/big', { resultBudget: budget }))
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'truncate', originalBytes: 150_000 })
    expect(Buffer.byteLength(textOf(result.modelContent))).toBeLessThanOrEqual(1_000)
    expect(textOf(result.modelContent)).toMatch(/^x+\n\n\[Tool output truncated by resultBudget: originalBytes=150000, maxModelBytes=1000, strategy=truncate\]$/)
  })

  it.each([
    ['a non-2xx status', '/status-500', 'TOOL_ERR_HTTP_STATUS', `HTTP tool bad: {url} replied with status 500: database down`],
    ['a body that is not JSON', '/not-json', 'TOOL_ERR_HTTP_REPLY', 'HTTP tool bad: malformed reply from {url}: not JSON: hello'],
    ['content of the wrong type', '/bad-shape', 'TOOL_ERR_HTTP_REPLY', 'HTTP tool bad: malformed reply from {url}: `content` must be a string or an array of content blocks'],
    ['a malformed block', '/bad-block', 'TOOL_ERR_HTTP_REPLY', 'HTTP tool bad: malformed reply from {url}: content[0] is a text block without a string `text`'],
    ['a reply over the size limit', '/huge', 'TOOL_ERR_HTTP_REPLY', `HTTP tool bad: malformed reply from {url}: the reply is larger than ${MAX_REPLY_BYTES} bytes`],
  ])('R26 fails with a tool_use_error on %s', async (_, route, code, message) => {
    const result = await run(definition('bad', route))
    const expected = message.replace('{url}', `${base}${route}`)
    expect([result.status, result.error?.code, result.modelContent]).toEqual(['failed', code, `<tool_use_error>${expected}</tool_use_error>`])
  })

  it('R26 fails with a tool_use_error naming the URL when nothing listens there', async () => {
    const result = await run(definition('gone', deadUrl))
    expect(result.error?.code).toBe('TOOL_ERR_HTTP_UNREACHABLE')
    expect(result.modelContent).toMatch(new RegExp(`^<tool_use_error>HTTP tool gone could not reach ${deadUrl}: .*ECONNREFUSED`))
  })

  it('R23 aborts the request when the turn is aborted', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const result = await run(definition('hang', '/hang', { headers: { 'x-call': 'aborted' } }), { q: 'x' }, 'bypassPermissions', controller.signal)
    expect(result.status).toBe('cancelled')
    await expect.poll(() => closedEarly.includes('aborted')).toBe(true)
  })

  it('R20 R23 times out by its own policy and closes the request', async () => {
    const result = await run(definition('hang', '/hang', { headers: { 'x-call': 'timed' }, timeout: { kind: 'deadline', defaultMs: 150 } }))
    expect([result.status, result.modelContent]).toEqual(['timed_out', 'Tool execution timed out after 150ms'])
    await expect.poll(() => closedEarly.includes('timed')).toBe(true)
  })

  it('A4 validates the input against the declared JSON schema before calling the endpoint', async () => {
    const result = await run(definition('echo', '/echo'), { q: 1 })
    expect(result.modelContent).toBe(
      '<tool_use_error>InputValidationError: echo failed due to the following issue:\nThe parameter `q` type is expected as `string` but provided as `number`</tool_use_error>',
    )
  })
})

describe('HTTP tool flags and definitions', () => {
  it('R3 declares scope network, not read-only and serial unless the definition says otherwise', () => {
    expect(declaredFlags(createHttpTool(definition('d', '/echo')))).toMatchObject({ readOnly: false, destructive: false, concurrentSafe: false, sideEffectScope: 'network' })
    const pure = createHttpTool(definition('p', '/echo', { readOnly: true, sideEffectScope: 'none' }))
    expect(declaredFlags(pure)).toMatchObject({ readOnly: true, concurrentSafe: true, sideEffectScope: 'none' })
  })

  it('R4 R5 schedules declared read-only HTTP tools with other parallel calls and the rest alone', () => {
    const registry = new InMemoryToolRegistry([
      readTool,
      createHttpTool(definition('pure', '/echo', { readOnly: true, sideEffectScope: 'none' })),
      createHttpTool(definition('write', '/echo', { destructive: true })),
    ])
    const plan = createTestExecutor({ registry }).plan([
      { id: 'a', name: 'Read', input: { file_path: 'f' } },
      { id: 'b', name: 'pure', input: {} },
      { id: 'c', name: 'write', input: {} },
    ])
    expect(plan).toEqual([['a', 'b'], ['c']])
  })

  it('asks for approval in the default mode unless the tool is read-only with scope none', async () => {
    expect((await run(definition('net', '/echo'), { q: 'x' }, 'default')).status).toBe('denied')
    expect((await run(definition('pure', '/echo', { readOnly: true, sideEffectScope: 'none' }), { q: 'x' }, 'default')).status).toBe('succeeded')
  })

  it.each([
    ['an ftp url', { url: 'ftp://example.com/x' }, 'url must use http or https, not ftp'],
    ['a relative url', { url: '/tools/x' }, 'url "/tools/x" is not an absolute URL'],
    ['the mcp__ prefix', { name: 'mcp__x__y' }, 'the name must not start with `mcp__` (reserved for MCP tools)'],
    ['a bad header name', { headers: { 'bad header': 'v' } }, 'header name "bad header" is not a valid HTTP header name'],
    ['a reserved header', { headers: { 'Content-Length': '5' } }, 'header Content-Length is set by the server and cannot be configured'],
    ['a line break in a header', { headers: { 'x-a': 'v\r\nx-b: w' } }, 'header x-a has a line break or NUL in its value'],
  ])('refuses a definition with %s', (_, extra, reason) => {
    const def = { ...definition('t', '/echo'), ...extra }
    let thrown: unknown
    try {
      createHttpTool(def)
    } catch (error) {
      thrown = error
    }
    expect(hasCode(thrown, 'EXEC_ERR_INVALID_TOOL')).toBe(true)
    expect((thrown as Error).message).toBe(`Invalid tool entry ${def.name}: ${reason}`)
  })

  it('marks only the entries it made as HTTP tools', () => {
    expect(isHttpTool(createHttpTool(definition('h', '/echo')))).toBe(true)
    expect(isHttpTool(readTool)).toBe(false)
  })
})
