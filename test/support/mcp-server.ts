/**
 * An MCP server for the tests, over stdio with the SDK, run as `node --import tsx <this file>`.
 * Its tools carry each annotation (readOnlyHint, idempotentHint, destructiveHint, none), and
 * some misbehave on purpose: `slow` sleeps (and honours cancellation), `crash` exits the
 * process, `freeze` blocks its event loop so that it never answers again.
 * Flag: `--exit-on-start` writes to stderr and exits before the handshake.
 * The low-level `Server` is used on purpose: the tools declare plain JSON Schemas, as real servers do.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'

export const MCP_SERVER_SCRIPT = fileURLToPath(import.meta.url)
export const REPO_ROOT = path.resolve(path.dirname(MCP_SERVER_SCRIPT), '../..')

/** A 1x1 transparent PNG. */
export const PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='

const QUERY_SCHEMA: Tool['inputSchema'] = {
  type: 'object',
  properties: { query: { type: 'string', minLength: 1, description: 'What to look up' } },
  required: ['query'],
  additionalProperties: false,
}

export const TEST_MCP_TOOLS: readonly Tool[] = [
  { name: 'lookup', description: 'Reads; answers with the query, pid and MCP_TEST_TAG', inputSchema: QUERY_SCHEMA, annotations: { readOnlyHint: true } },
  { name: 'upsert', description: 'Idempotent write', inputSchema: QUERY_SCHEMA, annotations: { idempotentHint: true } },
  { name: 'remove', description: 'Destructive write', inputSchema: QUERY_SCHEMA, annotations: { destructiveHint: true } },
  { name: 'plain', description: 'No annotations at all', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'slow',
    description: 'Sleeps ms milliseconds unless cancelled',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    annotations: { readOnlyHint: true },
  },
  { name: 'crash', description: 'Exits the server process', inputSchema: { type: 'object' } },
  { name: 'freeze', description: 'Blocks the event loop for good', inputSchema: { type: 'object' } },
  {
    name: 'big',
    description: 'Answers with `bytes` bytes of text in `blocks` blocks',
    inputSchema: { type: 'object', properties: { bytes: { type: 'integer' }, blocks: { type: 'integer', minimum: 1 } }, required: ['bytes'] },
    annotations: { readOnlyHint: true },
  },
  { name: 'picture', description: 'Answers with an image and a caption', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'refuse', description: 'Answers with isError', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'echo.v2', description: 'A name with a dot', inputSchema: { type: 'object', properties: { text: { type: ['string', 'null'] } } } },
]

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] }
}

function sleep(ms: number, signal: AbortSignal): Promise<CallToolResult> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(text(`slept ${ms}`)), ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve(text('cancelled'))
    })
  })
}

function bigText(bytes: number, blocks: number): CallToolResult {
  const each = Math.ceil(bytes / blocks)
  return { content: Array.from({ length: blocks }, (_, index) => ({ type: 'text' as const, text: String.fromCharCode(97 + (index % 26)).repeat(each) })) }
}

async function callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  switch (name) {
    case 'lookup':
      return text(JSON.stringify({ query: args['query'], pid: process.pid, tag: process.env['MCP_TEST_TAG'] ?? null }))
    case 'upsert':
    case 'remove':
    case 'plain':
      return text(`${name} ${typeof args['query'] === 'string' ? args['query'] : ''}`.trim())
    case 'slow':
      return sleep(Number(args['ms']), signal)
    case 'crash':
      process.stderr.write('crashing on purpose\n')
      return process.exit(3)
    case 'freeze':
      for (;;) {
        // Busy on purpose: the process stays alive and answers nothing.
      }
    case 'big':
      return bigText(Number(args['bytes']), Number(args['blocks'] ?? 1))
    case 'picture':
      return {
        content: [
          { type: 'image', data: PIXEL_PNG_BASE64, mimeType: 'image/png' },
          { type: 'text', text: 'a pixel' },
        ],
      }
    case 'refuse':
      return { content: [{ type: 'text', text: 'no such record' }], isError: true }
    case 'echo.v2':
      return text(`echo ${String(args['text'])}`)
    default:
      throw new Error(`unknown tool ${name}`)
  }
}

async function main(): Promise<void> {
  const flags = new Set(process.argv.slice(2))
  process.stdin.on('end', () => process.exit(0))
  if (flags.has('--exit-on-start')) {
    process.stderr.write('refusing to start\n')
    process.exit(2)
  }
  const server = new Server({ name: 'toolexec-test', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...TEST_MCP_TOOLS] }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => callTool(request.params.name, request.params.arguments ?? {}, extra.signal))
  await server.connect(new StdioServerTransport())
}

if (process.argv[1] === MCP_SERVER_SCRIPT) await main()
