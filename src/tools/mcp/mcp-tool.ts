/**
 * @module One MCP tool as a registry entry `mcp__<server>__<tool>` (SPEC R7, A1 MCP row):
 * flags from its annotations, scope `network`, the server's timeout, a 100000/50000 truncating
 * budget, and failures of the server as tool_use_errors that name it.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { ToolexecError } from '../../contracts/errors.js'
import type { ToolCallContext } from '../../contracts/ports.js'
import type { ResultBudget, ToolBusinessFailure, ToolEntry } from '../../contracts/tool-entry.js'
import { mcpToolDisplay } from '../../output/mcp-tool-display.js'
import { toInputSchema } from '../json-input-schema.js'
import type { McpCallReply } from './mcp-connection.js'
import { blocksToModelContent, type ToolReplyOutput } from './mcp-content.js'

export const MCP_DEFAULT_TIMEOUT_MS = 30_000
export const MCP_RESULT_BUDGET: ResultBudget = Object.freeze({
  maxInlineBytes: 100_000,
  maxModelBytes: 50_000,
  strategy: 'truncate',
  previewDirection: 'head',
})

/** What an MCP tool entry needs of its server. */
export interface McpToolServer {
  readonly name: string
  readonly timeoutMs?: number | undefined
  callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallReply>
}

type McpInput = Record<string, unknown>

/** `mcp__<server>__<tool>`, the tool's name reduced to the characters model APIs accept. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`
}

/**
 * @example createMcpTool(connection, { name: 'search', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } })
 */
export function createMcpTool(server: McpToolServer, tool: Tool): ToolEntry<McpInput, ToolReplyOutput> {
  const readOnly = tool.annotations?.readOnlyHint === true
  const name = mcpToolName(server.name, tool.name)
  return {
    name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    inputSchema: toInputSchema(tool.inputSchema),
    readOnly,
    destructive: tool.annotations?.destructiveHint === true,
    concurrentSafe: readOnly || tool.annotations?.idempotentHint === true,
    permission: { sideEffectScope: 'network' },
    timeout: { kind: 'deadline', defaultMs: server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS },
    resultBudget: MCP_RESULT_BUDGET,
    handler: (input, ctx) => callMcpTool(server, tool.name, input, ctx),
    formatModelContent: (output) => output.content,
    buildDisplay: ({ output, fullText }) => mcpToolDisplay(name, output, fullText),
  }
}

async function callMcpTool(server: McpToolServer, tool: string, input: McpInput, ctx: ToolCallContext): Promise<ToolReplyOutput | ToolBusinessFailure> {
  let reply: McpCallReply
  try {
    reply = await server.callTool(tool, input, ctx.signal)
  } catch (error) {
    if (!ctx.signal.aborted && error instanceof ToolexecError && error.code.startsWith('TOOL_ERR_MCP_')) {
      return { result: false, errorCode: error.code, message: error.message }
    }
    throw error
  }
  return replyOutput(server.name, tool, reply)
}

function replyOutput(server: string, tool: string, reply: McpCallReply): ToolReplyOutput | ToolBusinessFailure {
  const isError = reply.isError === true
  if (reply.content === undefined || (reply.content.length === 0 && reply.structuredContent !== undefined)) {
    // Older servers answer `toolResult`; structured-only replies have no blocks to show.
    const value = reply.structuredContent ?? reply.toolResult
    return { content: value === undefined ? '' : JSON.stringify(value, null, 2), isError }
  }
  const content = blocksToModelContent(reply.content)
  if (typeof content === 'object' && 'problem' in content) {
    const error = new ToolexecError('TOOL_ERR_MCP_REQUEST', [server, tool, `malformed reply: ${content.problem}`])
    return { result: false, errorCode: error.code, message: error.message }
  }
  return { content, isError }
}
