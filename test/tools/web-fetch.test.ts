import fs from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ModelClient, ModelRequest, ModelResponse, PermissionMode } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { AdmissionGate } from '../../src/executor/admission-gate.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { DEFAULT_WEB_FETCH } from '../../src/tools/services.js'
import { isBlockedAddress } from '../../src/tools/web-fetch/address-policy.js'
import { MAX_PAGE_BYTES_FOR_MODEL } from '../../src/tools/web-fetch/ask-model.js'
import { createWebFetchTool, noModelNote, type WebFetchOutput } from '../../src/tools/web-fetch/index.js'
import { htmlToMarkdown } from '../../src/tools/web-fetch/page-content.js'
import { ofType, tempDir } from '../support/permission-tools.js'
import { collectEvents, readTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

const PAGE_HTML = `<!doctype html><html><head><title>T</title><style>body { color: red }</style>
<script>window.secret = "do-not-leak"</script></head>
<body><h1>Fetch me</h1><p>A <a href="/other">link</a> and <strong>bold</strong> text.</p><ul><li>one</li><li>two</li></ul></body></html>`
const BIG_PARAGRAPH = `<p>${'word '.repeat(40)}</p>\n`
const BIG_HTML = `<html><body><h1>Big</h1>${BIG_PARAGRAPH.repeat(1200)}</body></html>`
// 60 KB that turndown works on for about a second: in the server's thread it then overflows the stack.
const NESTED_HTML = `<html><body>${'<div>'.repeat(5000)}deep-marker${'</div>'.repeat(5000)}</body></html>`

/** Connections the server saw end before their response was complete (the client aborted). */
const abortedRequests: string[] = []

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://placeholder')
  const send = (status: number, type: string | undefined, body: string | Buffer): void => {
    if (type !== undefined) res.setHeader('content-type', type)
    res.writeHead(status)
    res.end(body)
  }
  switch (url.pathname) {
    case '/page.html':
      return send(200, 'text/html; charset=utf-8', PAGE_HTML)
    case '/big.html':
      return send(200, 'text/html', BIG_HTML)
    case '/nested.html':
      return send(200, 'text/html', NESTED_HTML)
    case '/plain.txt':
      return send(200, 'text/plain', 'just text\n  with <b>markup</b> kept')
    case '/data.json':
      return send(200, 'application/json', '{"a":1,"b":[true,null]}')
    case '/latin1.txt':
      return send(200, 'text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    case '/image.png':
      return send(200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]))
    case '/missing':
      return send(404, 'text/html', '<p>not here</p>')
    case '/empty-redirect':
      return send(302, undefined, '')
    case '/redirect':
      res.setHeader('location', url.searchParams.get('to') ?? '/page.html')
      return send(302, undefined, '')
    case '/hops': {
      const left = Number(url.searchParams.get('n'))
      res.setHeader('location', left <= 0 ? '/page.html' : `/hops?n=${left - 1}`)
      return send(301, undefined, '')
    }
    case '/stream': {
      // No content-length: the size is only known while reading.
      res.writeHead(200, { 'content-type': 'text/plain' })
      const chunk = 'x'.repeat(64 * 1024)
      let sent = 0
      const pump = (): void => {
        while (sent < 4 * 1024 * 1024) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      return pump()
    }
    case '/declared':
      return send(200, 'text/plain', 'y'.repeat(5000))
    case '/slow':
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('partial')
      res.on('close', () => {
        if (!res.writableFinished) abortedRequests.push(url.pathname)
      })
      return
    default:
      return send(404, 'text/plain', 'no route')
  }
}

let server: http.Server
let otherServer: http.Server
let base: string
let port: number
let otherPort: number

async function listen(): Promise<http.Server> {
  const created = http.createServer(route)
  await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve))
  return created
}

async function close(closing: http.Server): Promise<void> {
  closing.closeAllConnections()
  await new Promise((resolve) => closing.close(resolve))
}

beforeAll(async () => {
  server = await listen()
  otherServer = await listen()
  port = (server.address() as AddressInfo).port
  otherPort = (otherServer.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
})

afterAll(async () => {
  await Promise.all([close(server), close(otherServer)])
})

/** A real model client in the process: it answers from the request and records what it got. */
class RecordingModel implements ModelClient {
  readonly requests: ModelRequest[] = []

  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    if (signal.aborted) return Promise.reject(signal.reason as Error)
    this.requests.push(request)
    const user = request.messages.find((message) => message.role === 'user')?.content ?? ''
    return Promise.resolve({ text: `answer: ${user.includes('Fetch me') ? 'the page has a heading' : 'no heading seen'}` })
  }
}

interface HarnessOptions {
  readonly allowPrivateNetwork?: boolean
  readonly maxResponseBytes?: number
  readonly model?: ModelClient
  readonly admission?: AdmissionGate
  readonly trustedOrigins?: readonly string[]
}

async function harness(options: HarnessOptions = {}) {
  const dataDir = await tempDir('webfetch')
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createWebFetchTool({ trustedOrigins: options.trustedOrigins }), readTool]),
    artifacts: new FsArtifactStore({ dataDir }),
    model: options.model,
    admission: options.admission,
    services: {
      webFetch: {
        ...DEFAULT_WEB_FETCH,
        allowPrivateNetwork: options.allowPrivateNetwork ?? true,
        maxResponseBytes: options.maxResponseBytes ?? DEFAULT_WEB_FETCH.maxResponseBytes,
      },
    },
  })
  const { events, emit } = collectEvents()
  let next = 0
  const fetch = (input: Record<string, unknown>, extra: { signal?: AbortSignal; mode?: PermissionMode } = {}): Promise<ToolExecutionResult> =>
    executor.execute({ id: `c${++next}`, name: 'WebFetch', input }, { sessionId: 's1', emit, permissionMode: extra.mode ?? 'bypassPermissions', signal: extra.signal })
  return { executor, events, fetch, dataDir }
}

function outputOf(result: ToolExecutionResult): WebFetchOutput {
  expect(result.status).toBe('succeeded')
  return result.output as WebFetchOutput
}

describe('WebFetch', () => {
  it('R12 turns HTML into Markdown without scripts or styles', async () => {
    const { fetch } = await harness()
    const result = await fetch({ url: `${base}/page.html` })
    const output = outputOf(result)
    expect(result.modelContent).toBe(output.text)
    expect(output.text).toContain('# Fetch me')
    expect(output.text).toContain('[link](/other)')
    expect(output.text).toContain('**bold**')
    expect(output.text).toMatch(/-\s+one/)
    expect(output.text).not.toContain('do-not-leak')
    expect(output.text).not.toContain('color: red')
    expect(output).toMatchObject({ statusCode: 200, contentType: 'text/html', answeredByModel: false, finalUrl: `${base}/page.html` })
  })

  it.each([
    ['text/plain', '/plain.txt', 'just text\n  with <b>markup</b> kept'],
    ['JSON', '/data.json', '{"a":1,"b":[true,null]}'],
    ['a declared charset', '/latin1.txt', 'café'],
  ])('R12 returns %s as it is', async (_kind, path, expected) => {
    const { fetch } = await harness()
    expect(outputOf(await fetch({ url: `${base}${path}` })).text).toBe(expected)
  })

  it('converts HTML off the event loop: a page of deeply nested elements holds no other work', async () => {
    const { fetch } = await harness()
    let longestGap = 0
    let last = performance.now()
    const ticker = setInterval(() => {
      const now = performance.now()
      longestGap = Math.max(longestGap, now - last)
      last = now
    }, 5)
    try {
      const output = outputOf(await fetch({ url: `${base}/nested.html` }))
      expect(output).toMatchObject({ text: 'deep-marker', contentType: 'text/html' })
    } finally {
      clearInterval(ticker)
    }
    expect(longestGap).toBeLessThan(250)
  })

  it('gives up converting HTML after its time limit, and an abort stops the conversion', async () => {
    expect(await htmlToMarkdown(NESTED_HTML, new AbortController().signal, 50)).toBeUndefined()
    const controller = new AbortController()
    const converting = htmlToMarkdown(NESTED_HTML, controller.signal)
    setTimeout(() => controller.abort(new Error('turn aborted')), 50)
    await expect(converting).rejects.toThrow('turn aborted')
  })

  it('R12 follows redirects by hand, relative locations included, and reports the final URL', async () => {
    const { fetch } = await harness()
    const output = outputOf(await fetch({ url: `${base}/hops?n=9` }))
    expect(output.finalUrl).toBe(`${base}/page.html`)
    expect(output.text).toContain('# Fetch me')
  })

  it.each([
    ['an unparsable URL', () => 'not a url', () => 'Invalid URL: not a url'],
    ['a scheme other than http(s)', () => 'file:///etc/passwd', () => 'Unsupported URL scheme "file:" in file:///etc/passwd: WebFetch fetches http and https URLs only'],
    ['an error status', () => `${base}/missing`, () => `HTTP 404 Not Found from ${base}/missing`],
    ['a redirect without a location', () => `${base}/empty-redirect`, () => `HTTP 302 Found from ${base}/empty-redirect`],
    ['binary content', () => `${base}/image.png`, () => `${base}/image.png returned image/png content, which WebFetch cannot read: it reads HTML, text and JSON`],
    ['more than 10 redirects', () => `${base}/hops?n=10`, () => `Too many redirects (more than 10) starting from ${base}/hops?n=10`],
  ])('R26 answers %s with a tool_use_error', async (_case, url, message) => {
    const { fetch } = await harness()
    const result = await fetch({ url: url() })
    expect(result.status).toBe('failed')
    expect(result.error?.errorClass).toBe('business')
    expect(result.modelContent).toBe(`<tool_use_error>${message()}</tool_use_error>`)
  })

  it.each([
    ['a streamed body', '/stream', 1024 * 1024],
    ['a declared content-length', '/declared', 4000],
  ])('R26 aborts a response over maxResponseBytes (%s)', async (_case, path, limit) => {
    const { fetch } = await harness({ maxResponseBytes: limit })
    const result = await fetch({ url: `${base}${path}` })
    expect(result.error?.code).toBe('TOOL_ERR_WEBFETCH_TOO_LARGE')
    expect(result.modelContent).toBe(`<tool_use_error>The response from ${base}${path} is larger than maxResponseBytes (${limit} bytes)</tool_use_error>`)
  })

  it.each([
    ['a loopback IP literal', () => `${base}/page.html`, '127.0.0.1'],
    ['a name that resolves to loopback (checked in the socket lookup)', () => `http://localhost:${port}/page.html`, 'localhost (127.0.0.1)'],
    ['an IPv6 loopback literal', () => `http://[::1]:${port}/page.html`, '[::1]'],
    ['an IPv4-mapped IPv6 literal', () => `http://[::ffff:127.0.0.1]:${port}/page.html`, '[::ffff:7f00:1]'],
    ['a link-local metadata address', () => 'http://169.254.169.254/latest/meta-data', '169.254.169.254'],
  ])('R26 refuses %s without allowPrivateNetwork', async (_case, url, target) => {
    const { fetch } = await harness({ allowPrivateNetwork: false })
    const result = await fetch({ url: url() })
    expect(result.error?.code).toBe('TOOL_ERR_WEBFETCH_BLOCKED_ADDRESS')
    expect(result.modelContent).toBe(`<tool_use_error>Refused to connect to ${target}: private, loopback and link-local addresses are not allowed</tool_use_error>`)
  })

  it.each([
    ['an IP literal', (other: number) => `http://127.0.0.1:${other}/page.html`, /^127\.0\.0\.1$/],
    ['a name that resolves to loopback', (other: number) => `http://localhost:${other}/page.html`, /^localhost \((127\.0\.0\.1|::1)\)$/],
  ])('R26 checks every redirect hop: an allowed origin redirecting to %s is refused', async (_case, target, refused) => {
    // The first hop's origin is trusted; the second server's is not, though it is reachable.
    const trusted = `http://127.0.0.1:${port}`
    const redirect = `${trusted}/redirect?to=${encodeURIComponent(target(otherPort))}`
    const open = await harness({ allowPrivateNetwork: true })
    expect(outputOf(await open.fetch({ url: redirect })).finalUrl).toBe(target(otherPort))
    const { fetch } = await harness({ allowPrivateNetwork: false, trustedOrigins: [trusted] })
    expect(outputOf(await fetch({ url: `${trusted}/page.html` })).text).toContain('# Fetch me')
    const result = await fetch({ url: redirect })
    expect(result.error?.code).toBe('TOOL_ERR_WEBFETCH_BLOCKED_ADDRESS')
    const match = /^<tool_use_error>Refused to connect to (.+): private, loopback and link-local addresses are not allowed<\/tool_use_error>$/.exec(result.modelContent as string)
    expect(match?.[1]).toMatch(refused)
  })

  it.each([
    ['10.1.2.3', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.0.1', true],
    ['127.8.8.8', true],
    ['169.254.1.1', true],
    ['0.0.0.0', true],
    ['100.100.100.200', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['::', true],
    ['::1', true],
    ['fd00::2', true],
    ['fe80::1', true],
    ['ff02::1', true],
    ['::ffff:10.0.0.1', true],
    ['64:ff9b::7f00:1', true],
    ['2002:c0a8:101::1', true],
    ['2606:4700::1111', false],
    ['example.com', false],
  ])('R26 classifies %s as blocked=%s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked)
  })

  it('R32 saves a page over 100000 bytes as an artifact and gives the model the head', async () => {
    const { fetch } = await harness()
    const result = await fetch({ url: `${base}/big.html` })
    const output = outputOf(result)
    expect(Buffer.byteLength(output.text)).toBeGreaterThan(100_000)
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'artifact' })
    const content = result.modelContent as string
    expect(content.startsWith('<persisted-output>\nOutput too large (')).toBe(true)
    expect(content).toContain('# Big')
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(100_000)
    const saved = await fs.readFile(result.serialization.persistedPath as string, 'utf8')
    expect(saved).toBe(output.text)
  })

  it('R22 answers the prompt with the model through the admission gate, queue time counted apart', async () => {
    const model = new RecordingModel()
    const admission = new AdmissionGate(1)
    const { fetch, events } = await harness({ model, admission })
    const release = await admission.acquire()
    const fetching = fetch({ url: `${base}/page.html`, prompt: 'Does it have a heading?' })
    // Held from the moment it queues: the page's conversion before it is no queue time.
    await vi.waitFor(() => expect(ofType(events, 'ModelNetworkStatus')).not.toHaveLength(0))
    setTimeout(release, 300)
    const result = await fetching
    const output = outputOf(result)
    expect(output.text).toBe('answer: the page has a heading')
    expect(output.answeredByModel).toBe(true)
    expect(result.modelContent).toBe('answer: the page has a heading')
    expect(result.perf.queuedMs).toBeGreaterThanOrEqual(250)
    const statuses = ofType(events, 'ModelNetworkStatus').map((event) => [event.callId, event.status])
    expect(statuses).toEqual([
      ['c1', 'model_request_queued'],
      ['c1', 'model_request_admitted'],
      ['c1', 'model_request_completed'],
    ])
    const user = model.requests[0]?.messages.find((message) => message.role === 'user')?.content ?? ''
    expect(user).toContain(`Web page: ${base}/page.html`)
    expect(user).toContain('# Fetch me')
    expect(user).toContain('Request: Does it have a heading?')
  })

  it('R22 cuts a large page before it goes to the model', async () => {
    const model = new RecordingModel()
    const { fetch } = await harness({ model })
    outputOf(await fetch({ url: `${base}/big.html`, prompt: 'Summarise' }))
    const user = model.requests[0]?.messages.find((message) => message.role === 'user')?.content ?? ''
    expect(Buffer.byteLength(user)).toBeLessThan(MAX_PAGE_BYTES_FOR_MODEL + 1000)
    expect(user).toMatch(/\[Page cut to its first 100000 of \d+ bytes\]/)
  })

  it('R12 without a model returns the Markdown under one first line that says so', async () => {
    const { fetch } = await harness()
    const output = outputOf(await fetch({ url: `${base}/page.html`, prompt: 'Does it have a heading?' }))
    const [first, blank, ...rest] = output.text.split('\n')
    expect(first).toBe(noModelNote('markdown'))
    expect(blank).toBe('')
    expect(rest.join('\n')).toContain('# Fetch me')
    expect(output.answeredByModel).toBe(false)
  })

  it('R23 aborts the download when the turn is aborted', async () => {
    const { fetch } = await harness()
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 150)
    const result = await fetch({ url: `${base}/slow` }, { signal: controller.signal })
    expect(result.status).toBe('cancelled')
    await expect.poll(() => abortedRequests.includes('/slow'), { timeout: 2000 }).toBe(true)
  })

  it('R20 uses 60000 ms whatever the call asks for', () => {
    const entry = createWebFetchTool()
    expect(resolveTimeoutMs(entry, { url: 'x', timeout: 5 }, 300_000)).toBe(60_000)
  })

  it('R5 runs WebFetch calls in one parallel group, but needs approval by R3 (scope network)', async () => {
    const { executor, fetch } = await harness()
    const calls = [
      { id: 'a', name: 'WebFetch', input: { url: `${base}/page.html` } },
      { id: 'b', name: 'WebFetch', input: { url: `${base}/plain.txt` } },
      { id: 'c', name: 'Read', input: { file_path: 'x' } },
    ]
    expect(executor.plan(calls)).toEqual([['a', 'b', 'c']])
    expect(executor.flagsOf(calls[0] as (typeof calls)[number])).toMatchObject({ readOnly: false, concurrentSafe: true, destructive: false, sideEffectScope: 'network' })
    const denied = await fetch({ url: `${base}/page.html` }, { mode: 'default' })
    expect([denied.status, denied.modelContent]).toEqual(['denied', 'No permission client configured'])
  })
})
