/**
 * @module The configured MCP servers: started together, their tools listed once at start and
 * registered as `mcp__<server>__<tool>`, and every child process ended on stop().
 * @example
 *   const mcp = new McpManager(parseToolConfig(fileConfig, file).mcpServers, { logger })
 *   await mcp.start()
 *   const registry = new InMemoryToolRegistry([...builtinTools(), ...mcp.tools()])
 *   // at shutdown
 *   await mcp.stop()
 */
import type { Logger } from 'pino'
import type { McpServerEntry } from '../../contracts/tool-config.js'
import type { ToolEntry } from '../../contracts/tool-entry.js'
import { defaultCommandEnvironment, type CommandEnvironment } from '../../processes/command-environment.js'
import { McpConnection } from './mcp-connection.js'
import { createMcpTool } from './mcp-tool.js'

export const MCP_CONNECT_TIMEOUT_MS = 30_000
export const MCP_LIVENESS_TIMEOUT_MS = 5_000

export interface McpManagerOptions {
  readonly logger?: Logger | undefined
  /** How long a server may take to answer the initialize handshake and tools/list. */
  readonly connectTimeoutMs?: number | undefined
  /** After a call timed out, how long a ping may take before the server is killed as hung. */
  readonly livenessTimeoutMs?: number | undefined
  /** What the servers get to see of this server's environment (command-environment.ts). */
  readonly environment?: CommandEnvironment | undefined
}

export interface McpServerStatus {
  readonly name: string
  readonly status: 'connected' | 'failed'
  readonly tools: number
  readonly error?: string | undefined
}

export class McpManager {
  readonly #connections: readonly McpConnection[]
  readonly #logger: Logger | undefined
  #tools: ToolEntry[] = []

  constructor(servers: readonly McpServerEntry[], options: McpManagerOptions = {}) {
    const connectionOptions = {
      connectTimeoutMs: options.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS,
      livenessTimeoutMs: options.livenessTimeoutMs ?? MCP_LIVENESS_TIMEOUT_MS,
      logger: options.logger,
      environment: options.environment ?? defaultCommandEnvironment(),
    }
    this.#connections = servers.map((server) => new McpConnection(server, connectionOptions))
    this.#logger = options.logger
  }

  /**
   * Starts every server and lists its tools. A server that fails to start is reported (and
   * logged) and contributes no tools; the others are unaffected. Never rejects.
   */
  async start(): Promise<McpServerStatus[]> {
    const results = await Promise.all(this.#connections.map((connection) => this.#startOne(connection)))
    this.#tools = uniqueByName(
      results.flatMap((result) => result.tools),
      this.#logger,
    )
    return results.map((result) => result.status)
  }

  /** The tool entries of the servers that started, in configuration order. */
  tools(): ToolEntry[] {
    return [...this.#tools]
  }

  /** Ends every server process; later calls fail with a tool_use_error naming the server. */
  async stop(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.stop()))
  }

  async #startOne(connection: McpConnection): Promise<{ status: McpServerStatus; tools: ToolEntry[] }> {
    try {
      const listed = await connection.listTools()
      const server = { name: connection.name, timeoutMs: connection.config.timeoutMs, callTool: connection.callTool.bind(connection) }
      const tools: ToolEntry[] = listed.map((tool) => createMcpTool(server, tool))
      this.#logger?.info({ server: connection.name, tools: tools.length }, 'MCP server connected')
      return { status: { name: connection.name, status: 'connected', tools: tools.length }, tools }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      this.#logger?.error({ server: connection.name, err: message }, 'MCP server failed to start; its tools are not registered')
      await connection.stop()
      return { status: { name: connection.name, status: 'failed', tools: 0, error: message }, tools: [] }
    }
  }
}

/** Two tool names that differ only in characters a name cannot hold collide; the first wins. */
function uniqueByName(tools: readonly ToolEntry[], logger: Logger | undefined): ToolEntry[] {
  const seen = new Set<string>()
  return tools.filter((tool) => {
    if (!seen.has(tool.name)) {
      seen.add(tool.name)
      return true
    }
    logger?.warn({ tool: tool.name }, 'MCP tool name already taken; skipped')
    return false
  })
}
