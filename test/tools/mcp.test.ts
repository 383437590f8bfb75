import { readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpServerEntry } from '../../src/contracts/tool-config.js'
import type { PermissionMode } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { type Executor } from '../../src/executor/executor.js'
import { isErrorForHistory } from '../../src/executor/history.js'
import { declaredFlags } from '../../src/executor/tool-flags.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { McpManager, type McpServerStatus } from '../../src/tools/mcp/mcp-manager.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { MCP_SERVER_SCRIPT, PIXEL_PNG_BASE64 } from '../support/mcp-server.js'
import { collectEvents } from '../support/tools.js'
import { tempDir } from '../support/temp-dirs.js'
import { createTestExecutor } from '../support/executor.js'
import { textOf } from '../support/model-text.js'

const ALPHA_TIMEOUT_MS = 1_500
const FROZEN_TIMEOUT_MS = 800
// Each server is a `node --import tsx` process; on a loaded machine starting one takes seconds.
const START_HOOK_TIMEOUT_MS = 60_000

function server(name: string, extra: Partial<McpServerEntry> = {}, flags: string[] = []): McpServerEntry {
  return { name, command: process.execPath, args: ['--import', 'tsx', MCP_SERVER_SCRIPT, ...flags], env: { MCP_TEST_TAG: `tag-${name}` }, ...extra }
}

let manager: McpManager
let statuses: McpServerStatus[]
let executor: Executor
let dataDir: string
let callCount = 0

beforeAll(async () => {
  dataDir = await tempDir('mcp')
  manager = new McpManager([server('alpha', { timeoutMs: ALPHA_TIMEOUT_MS }), server('crashy'), server('frozen', { timeoutMs: FROZEN_TIMEOUT_MS })], { livenessTimeoutMs: 500 })
  statuses = await manager.start()
  executor = createTestExecutor({ registry: new InMemoryToolRegistry(manager.tools()), artifacts: new FsArtifactStore({ dataDir }) })
}, START_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await manager.stop()
})

async function run(name: string, input: unknown, mode: PermissionMode = 'bypassPermissions', signal?: AbortSignal): Promise<ToolExecutionResult> {
  callCount += 1
  return executor.execute({ id: `call-${callCount}`, name, input }, { sessionId: 'mcp-session', permissionMode: mode, signal })
}

async function lookup(serverName: string): Promise<{ query: string; pid: number; tag: string }> {
  const result = await run(`mcp__${serverName}__lookup`, { query: 'q' })
  expect(result.status).toBe('succeeded')
  return JSON.parse(textOf(result.modelContent)) as { query: string; pid: number; tag: string }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

describe('MCP servers over stdio', () => {
  it('R7 starts every configured server and registers its tools as mcp__<server>__<tool>', () => {
    expect(statuses).toEqual(['alpha', 'crashy', 'frozen'].map((name) => ({ name, status: 'connected', tools: 11 })))
    const names = manager.tools().map((tool) => tool.name)
    expect(names).toContain('mcp__alpha__lookup')
    expect(names).toContain('mcp__crashy__remove')
    expect(names).toContain('mcp__alpha__echo_v2')
  })

  it.each([
    ['lookup', { readOnly: false, destructive: false, concurrentSafe: true }],
    ['upsert', { readOnly: false, destructive: false, concurrentSafe: true }],
    ['remove', { readOnly: false, destructive: true, concurrentSafe: false }],
    ['plain', { readOnly: false, destructive: false, concurrentSafe: false }],
  ])('R7 A1 turns the annotations of %s into flags with scope network', (tool, flags) => {
    const entry = manager.tools().find((candidate) => candidate.name === `mcp__alpha__${tool}`)
    expect(entry).toBeDefined()
    if (entry === undefined) return
    expect(entry.readOnly).toBe(tool === 'lookup')
    expect(declaredFlags(entry)).toMatchObject({ ...flags, sideEffectScope: 'network', alwaysAsk: false })
    expect(entry.timeout).toEqual({ kind: 'deadline', defaultMs: ALPHA_TIMEOUT_MS })
    expect(entry.resultBudget).toEqual({ maxInlineBytes: 100_000, maxModelBytes: 50_000, strategy: 'truncate', previewDirection: 'head' })
  })

  it('A1 gives a server without timeoutMs the 30000 ms default', () => {
    expect(manager.tools().find((tool) => tool.name === 'mcp__crashy__lookup')?.timeout).toEqual({ kind: 'deadline', defaultMs: 30_000 })
  })

  it('R7 R5 groups read-only and idempotent MCP calls together and runs destructive or unannotated ones alone', () => {
    const call = (id: string, tool: string) => ({ id, name: `mcp__alpha__${tool}`, input: { query: id } })
    const plan = executor.plan([call('a', 'lookup'), call('b', 'upsert'), call('c', 'remove'), call('d', 'lookup'), call('e', 'plain'), call('f', 'slow')])
    expect(plan).toEqual([['a', 'b'], ['c'], ['d'], ['e'], ['f']])
  })

  it('R8 runs the calls of one parallel group at the same time on the server', async () => {
    const { events, emit } = collectEvents()
    const outcome = await executor.executeSchedule(
      [
        { id: 'p1', name: 'mcp__alpha__slow', input: { ms: 400 } },
        { id: 'p2', name: 'mcp__alpha__slow', input: { ms: 400 } },
      ],
      { sessionId: 'mcp-session', permissionMode: 'bypassPermissions', emit },
    )
    expect(outcome.groups).toEqual([['p1', 'p2']])
    expect(outcome.results.map((result) => result.modelContent)).toEqual(['slept 400', 'slept 400'])
    const order = events.filter((event) => event.type === 'ToolCallStarted' || event.type === 'ToolCallResult').map((event) => event.type)
    expect(order).toEqual(['ToolCallStarted', 'ToolCallStarted', 'ToolCallResult', 'ToolCallResult'])
  })

  it('A1 asks for approval of every MCP tool in the default mode, read-only ones included', async () => {
    const results = await Promise.all(['lookup', 'remove'].map((tool) => run(`mcp__alpha__${tool}`, { query: 'q' }, 'default')))
    expect(results.map((result) => [result.status, result.modelContent])).toEqual([
      ['denied', 'No permission client configured'],
      ['denied', 'No permission client configured'],
    ])
  })

  it("A1 passes the configured env to the server and returns the tool's text", async () => {
    expect(await lookup('alpha')).toMatchObject({ query: 'q', tag: 'tag-alpha' })
    const echoed = await run('mcp__alpha__echo_v2', { text: null })
    expect(echoed.modelContent).toBe('echo null')
  })

  it.each([
    [{}, 'The required parameter `query` is missing'],
    [{ query: 'q', extra: 1 }, 'An unexpected parameter `extra` was provided'],
    [{ query: 5 }, 'The parameter `query` type is expected as `string` but provided as `number`'],
  ])('A4 validates input %j against the tool JSON schema before calling the server', async (input, line) => {
    const result = await run('mcp__alpha__lookup', input)
    expect(result.status).toBe('failed')
    expect(result.modelContent).toContain(line)
    expect(result.modelContent).toMatch(/^<tool_use_error>InputValidationError: mcp__alpha__lookup failed/)
  })

  it("R20 R23 times a slow call out by the server's timeoutMs, not the SDK's 60 s, and the server keeps serving", async () => {
    const before = await lookup('alpha')
    const started = Date.now()
    const result = await run('mcp__alpha__slow', { ms: 10_000 })
    const elapsed = Date.now() - started
    expect(result.status).toBe('timed_out')
    expect(result.modelContent).toBe(`Tool execution timed out after ${ALPHA_TIMEOUT_MS}ms`)
    expect(elapsed).toBeGreaterThanOrEqual(ALPHA_TIMEOUT_MS - 50)
    expect(elapsed).toBeLessThan(ALPHA_TIMEOUT_MS + 3_000)
    await new Promise((resolve) => setTimeout(resolve, 700))
    expect((await lookup('alpha')).pid).toBe(before.pid)
  })

  it('R23 ends a call at once when the turn is aborted', async () => {
    const controller = new AbortController()
    const started = Date.now()
    setTimeout(() => controller.abort(), 200)
    const result = await run('mcp__alpha__slow', { ms: 10_000 }, 'bypassPermissions', controller.signal)
    expect(result.status).toBe('cancelled')
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it('R32 A1 truncates output beyond the 50000-byte model budget, keeping the head', async () => {
    const result = await run('mcp__alpha__big', { bytes: 80_000, blocks: 2 })
    expect(result.status).toBe('succeeded')
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'truncate', originalBytes: 80_001 })
    expect(Buffer.byteLength(textOf(result.modelContent))).toBeLessThanOrEqual(50_000)
    expect(textOf(result.modelContent)).toMatch(/^a{1000}/)
    expect(textOf(result.modelContent)).toMatch(/\[Tool output truncated by resultBudget: originalBytes=80001, maxModelBytes=50000, strategy=truncate\]$/)
  })

  it('R38 builds the mcp_tool display, and R28 an isError reply is an error in history', async () => {
    const ok = await run('mcp__alpha__upsert', { query: 'k' })
    expect(ok.display).toEqual({ kind: 'mcp_tool', server: 'alpha', tool: 'upsert', text: 'upsert k', isError: false, truncated: false })
    const refused = await run('mcp__alpha__refuse', {})
    expect(refused.status).toBe('succeeded')
    expect(refused.modelContent).toBe('no such record')
    expect(refused.display).toMatchObject({ kind: 'mcp_tool', tool: 'refuse', isError: true })
    expect(isErrorForHistory(refused)).toBe(true)
  })

  it('R36 saves an image block as an artifact and keeps the caption', async () => {
    const result = await run('mcp__alpha__picture', {})
    const blocks = result.modelContent
    expect(Array.isArray(blocks)).toBe(true)
    if (!Array.isArray(blocks)) return
    const [image, caption] = blocks
    expect(caption).toEqual({ type: 'text', text: 'a pixel' })
    expect(image).toMatchObject({ type: 'image', mediaType: 'image/png' })
    if (image?.type !== 'image' || image.path === undefined) throw new Error('image not saved')
    expect(image.data).toBeUndefined()
    expect((await readFile(image.path)).toString('base64')).toBe(PIXEL_PNG_BASE64)
  })

  it('fails only the calls of a crashing server, with a tool_use_error naming it, and restarts it on the next call', async () => {
    const before = await lookup('crashy')
    const [crashed, other] = await Promise.all([run('mcp__crashy__crash', {}), run('mcp__alpha__slow', { ms: 300 })])
    expect(crashed.status).toBe('failed')
    expect(crashed.error?.code).toBe('TOOL_ERR_MCP_CONNECTION_LOST')
    expect(crashed.modelContent).toBe('<tool_use_error>MCP server "crashy" closed the connection during crash; it will be restarted on the next call (stderr: crashing on purpose)</tool_use_error>')
    expect(other.modelContent).toBe('slept 300')
    const after = await lookup('crashy')
    expect(after.pid).not.toBe(before.pid)
    expect(isAlive(before.pid)).toBe(false)
  })

  it('kills a server that stops answering after a call timed out, and restarts it on the next call', async () => {
    const before = await lookup('frozen')
    const result = await run('mcp__frozen__freeze', {})
    expect(result.status).toBe('timed_out')
    expect(result.modelContent).toBe(`Tool execution timed out after ${FROZEN_TIMEOUT_MS}ms`)
    expect(await until(() => !isAlive(before.pid), 3_000)).toBe(true)
    // The restart counts against the call's own 800 ms, and a loaded machine may need longer to boot tsx.
    let after: ToolExecutionResult | undefined
    for (let attempt = 0; attempt < 20 && after?.status !== 'succeeded'; attempt++) after = await run('mcp__frozen__lookup', { query: 'q' })
    expect(after?.status).toBe('succeeded')
    expect((JSON.parse(textOf(after?.modelContent)) as { pid: number }).pid).not.toBe(before.pid)
  })
})

describe('MCP servers that fail to start', () => {
  const broken: readonly [string, McpServerEntry, RegExp][] = [
    ['exits at start', server('quitter', {}, ['--exit-on-start']), /^MCP server "quitter" is unavailable: it exited before the initialize handshake completed \(stderr: refusing to start\)$/],
    ['cannot be spawned', { name: 'ghost', command: path.join(os.tmpdir(), 'no-such-mcp-server') }, /^MCP server "ghost" is unavailable: .*ENOENT/],
  ]
  let mixed: McpManager
  let mixedStatuses: McpServerStatus[]

  beforeAll(async () => {
    mixed = new McpManager([...broken.map(([, config]) => config), server('fine')], { connectTimeoutMs: 30_000 })
    mixedStatuses = await mixed.start()
  }, START_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await mixed.stop()
  })

  it.each(broken)('reports a server that %s, with no tools', (_, config, message) => {
    const status = mixedStatuses.find((candidate) => candidate.name === config.name)
    expect(status).toMatchObject({ status: 'failed', tools: 0 })
    expect(status?.error).toMatch(message)
  })

  it('reports a server that never answers initialize within connectTimeoutMs and kills it', async () => {
    // A process that starts at once and never speaks: the handshake timeout is all that ends it.
    const mute = new McpManager([{ name: 'mute', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }], { connectTimeoutMs: 500 })
    const started = Date.now()
    const [status] = await mute.start()
    expect(status).toEqual({ name: 'mute', status: 'failed', tools: 0, error: 'MCP server "mute" is unavailable: it did not answer the initialize request within 500 ms' })
    expect(Date.now() - started).toBeLessThan(5_000)
    await mute.stop()
  })

  it('still starts the other servers and registers only their tools', () => {
    expect(mixedStatuses.at(-1)).toEqual({ name: 'fine', status: 'connected', tools: 11 })
    expect(mixed.tools().map((tool) => tool.name.split('__')[1])).toEqual(Array(11).fill('fine'))
  })

  it('stop() ends every server process and later calls fail with a tool_use_error naming the server', async () => {
    const own = createTestExecutor({ registry: new InMemoryToolRegistry(mixed.tools()) })
    const call = (id: string) => own.execute({ id, name: 'mcp__fine__lookup', input: { query: 'q' } }, { sessionId: 's', permissionMode: 'bypassPermissions' })
    const { pid } = JSON.parse(textOf((await call('before')).modelContent)) as { pid: number }
    expect(isAlive(pid)).toBe(true)
    await mixed.stop()
    expect(isAlive(pid)).toBe(false)
    expect((await call('after')).modelContent).toBe('<tool_use_error>MCP server "fine" is unavailable: the server was stopped</tool_use_error>')
  })
})
