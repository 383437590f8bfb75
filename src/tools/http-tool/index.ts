/**
 * @module Client-defined HTTP tools: a definition from the config file or `POST /tools` becomes
 * a registry entry whose handler POSTs `{callId, sessionId, input}` to the tool's URL, so that
 * a front end's own tools get the same scheduling, approval, timeouts and budgets as ours.
 */
import type { Dispatcher } from 'undici'
import { ToolexecError } from '../../contracts/errors.js'
import type { HttpToolDefinition } from '../../contracts/tool-config.js'
import type { ToolEntry } from '../../contracts/tool-entry.js'
import { toInputSchema } from '../json-input-schema.js'
import type { ToolReplyOutput } from '../mcp/mcp-content.js'
import { callEndpoint } from './http-reply.js'

export { MAX_REPLY_BYTES, parseReply } from './http-reply.js'

export interface HttpToolOptions {
  /** For tests and proxies; the global dispatcher otherwise. */
  readonly dispatcher?: Dispatcher | undefined
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** Headers undici computes from the body or the URL; a definition must not set them. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'content-type'])

// Only entries made here can be removed again by DELETE /tools/:name.
const httpTools = new WeakSet<ToolEntry>()

/**
 * Checks what the schema cannot: the URL, header names and values, the reserved `mcp__` prefix.
 * @returns the first problem as a sentence, or undefined
 */
export function httpToolProblem(definition: HttpToolDefinition): string | undefined {
  if (definition.name.startsWith('mcp__')) return 'the name must not start with `mcp__` (reserved for MCP tools)'
  let url: URL
  try {
    url = new URL(definition.url)
  } catch {
    return `url ${JSON.stringify(definition.url)} is not an absolute URL`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `url must use http or https, not ${url.protocol.slice(0, -1)}`
  for (const [name, value] of Object.entries(definition.headers ?? {})) {
    if (!HEADER_NAME.test(name)) return `header name ${JSON.stringify(name)} is not a valid HTTP header name`
    if (RESERVED_HEADERS.has(name.toLowerCase())) return `header ${name} is set by the server and cannot be configured`
    if (/[\r\n\0]/.test(value)) return `header ${name} has a line break or NUL in its value`
  }
  return undefined
}

/**
 * @throws ToolexecError EXEC_ERR_INVALID_TOOL when {@link httpToolProblem} finds a problem
 * @example createHttpTool({ name: 'pick_color', description: '...', inputSchema: { type: 'object' }, url: 'http://127.0.0.1:3000/tools' })
 */
export function createHttpTool(definition: HttpToolDefinition, options: HttpToolOptions = {}): ToolEntry<unknown, ToolReplyOutput> {
  const problem = httpToolProblem(definition)
  if (problem !== undefined) throw new ToolexecError('EXEC_ERR_INVALID_TOOL', [definition.name, problem])
  const readOnly = definition.readOnly ?? false
  const { name, url } = definition
  const headers = { ...definition.headers }
  const entry: ToolEntry<unknown, ToolReplyOutput> = {
    name,
    description: definition.description,
    inputSchema: toInputSchema(definition.inputSchema),
    readOnly,
    destructive: definition.destructive ?? false,
    concurrentSafe: definition.concurrentSafe ?? readOnly,
    permission: { sideEffectScope: definition.sideEffectScope ?? 'network' },
    ...(definition.timeout === undefined ? null : { timeout: definition.timeout }),
    ...(definition.resultBudget === undefined ? null : { resultBudget: definition.resultBudget }),
    handler: (input, ctx) => callEndpoint({ toolName: name, url, headers, input, dispatcher: options.dispatcher }, ctx),
    formatModelContent: (output) => output.content,
  }
  httpTools.add(entry)
  return entry
}

/** True for entries made by {@link createHttpTool}: the only ones DELETE /tools/:name removes. */
export function isHttpTool(entry: ToolEntry): boolean {
  return httpTools.has(entry)
}
