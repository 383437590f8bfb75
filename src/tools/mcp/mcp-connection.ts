/**
 * @module One MCP server over stdio: started on first use, shared by concurrent calls, and
 * started again on the next call after it crashed or stopped answering. Time limits and
 * aborts come from the caller's signal; the SDK's own request timeout is pushed out of the way.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Logger } from 'pino'
import { hasCode, ToolexecError } from '../../contracts/errors.js'
import type { McpServerEntry } from '../../contracts/tool-config.js'
import type { CommandEnvironment } from '../../processes/command-environment.js'
import { StderrTail } from './stderr-tail.js'

/** Longer than any deadline we set, so that the SDK never times a request out before we do. */
const SDK_REQUEST_TIMEOUT_MS = 2_147_483_647
const CLIENT_INFO = { name: 'toolexec', version: '0.1.0' }
// McpError carries the code as a plain number.
const REQUEST_TIMEOUT: number = ErrorCode.RequestTimeout

export interface McpConnectionOptions {
  /** How long the initialize handshake may take. */
  readonly connectTimeoutMs: number
  /** After a call timed out: how long a ping may take before the server counts as hung. */
  readonly livenessTimeoutMs: number
  readonly logger?: Logger | undefined
  readonly environment: CommandEnvironment
}

/** What a tools/call returns, as far as we read it. */
export interface McpCallReply {
  readonly content?: readonly unknown[] | undefined
  readonly structuredContent?: unknown
  readonly isError?: boolean | undefined
  readonly toolResult?: unknown
}

interface LiveServer {
  readonly client: Client
  readonly transport: StdioClientTransport
  readonly stderr: StderrTail
  /** Read at spawn: the SDK forgets it as soon as it starts closing. */
  pid: number | null
  closed: boolean
}

export class McpConnection {
  readonly name: string
  readonly config: McpServerEntry
  readonly #options: McpConnectionOptions
  #current: LiveServer | undefined
  #starting: Promise<LiveServer> | undefined
  #stopped = false
  readonly #closing = new Set<Promise<void>>()

  constructor(config: McpServerEntry, options: McpConnectionOptions) {
    this.name = config.name
    this.config = config
    this.#options = options
  }

  /** Every tool the server lists, following pagination. */
  async listTools(signal?: AbortSignal): Promise<Tool[]> {
    const live = await this.#ready(signal)
    const tools: Tool[] = []
    let cursor: string | undefined
    do {
      const page = await live.client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout: this.#options.connectTimeoutMs })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return tools
  }

  /**
   * Calls one tool. Throws the signal's reason when aborted, a TOOL_ERR_MCP_* error when the
   * server is unavailable, lost during the call, or answers with a protocol error.
   */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallReply> {
    const live = await this.#ready(signal)
    try {
      return await live.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: SDK_REQUEST_TIMEOUT_MS })
    } catch (error) {
      if (signal.aborted) {
        if (hasCode(signal.reason, 'EXEC_ERR_TIMEOUT')) this.#checkLiveness(live)
        throw signal.reason
      }
      if (live.closed) throw new ToolexecError('TOOL_ERR_MCP_CONNECTION_LOST', [this.name, tool, live.stderr.suffix()], { cause: error })
      throw new ToolexecError('TOOL_ERR_MCP_REQUEST', [this.name, tool, messageOf(error)], { cause: error })
    }
  }

  /** Ends the server process (stdin closed, then SIGTERM, then SIGKILL) and refuses later calls. */
  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#current !== undefined) this.#close(this.#current, false)
    this.#current = undefined
    const starting = this.#starting
    // A start still under way sees #stopped when it settles and closes what it started.
    if (starting !== undefined)
      this.#track(
        starting.then(
          () => undefined,
          () => undefined,
        ),
      )
    while (this.#closing.size > 0) await Promise.all([...this.#closing])
  }

  /** The running server, started when there is none; an abort only stops this caller's wait. */
  #ready(signal: AbortSignal | undefined): Promise<LiveServer> {
    if (this.#stopped) return Promise.reject(new ToolexecError('TOOL_ERR_MCP_UNAVAILABLE', [this.name, 'the server was stopped']))
    const current = this.#current
    if (current !== undefined && !current.closed) return Promise.resolve(current)
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined
    })
    return signal === undefined ? this.#starting : raceAbort(this.#starting, signal)
  }

  async #start(): Promise<LiveServer> {
    const { command, args, env, passEnv } = this.config
    const transport = new StdioClientTransport({ command, args: args ?? [], env: this.#options.environment.build({ env, passEnv }), stderr: 'pipe' })
    const stderr = new StderrTail(transport.stderr)
    const client = new Client(CLIENT_INFO, { capabilities: {} })
    const live: LiveServer = { client, transport, stderr, pid: null, closed: false }
    client.onclose = () => this.#onClosed(live)
    const connecting = client.connect(transport, { timeout: this.#options.connectTimeoutMs })
    // connect() spawns synchronously before its first await; a failed handshake closes the transport and drops the pid.
    live.pid = transport.pid
    try {
      await connecting
    } catch (error) {
      this.#close(live, true)
      throw new ToolexecError('TOOL_ERR_MCP_UNAVAILABLE', [this.name, this.#startFailure(error, live)], { cause: error })
    }
    if (this.#stopped) {
      this.#close(live, false)
      throw new ToolexecError('TOOL_ERR_MCP_UNAVAILABLE', [this.name, 'the server was stopped'])
    }
    this.#current = live
    this.#options.logger?.info({ server: this.name, pid: live.pid }, 'MCP server started')
    return live
  }

  #startFailure(error: unknown, live: LiveServer): string {
    if (error instanceof McpError && error.code === REQUEST_TIMEOUT) {
      return `it did not answer the initialize request within ${this.#options.connectTimeoutMs} ms`
    }
    if (live.closed) return `it exited before the initialize handshake completed${live.stderr.suffix()}`
    return `${messageOf(error)}${live.stderr.suffix()}`
  }

  #onClosed(live: LiveServer): void {
    live.closed = true
    if (this.#current !== live) return
    this.#current = undefined
    if (!this.#stopped) this.#options.logger?.warn({ server: this.name, stderr: live.stderr.text() }, 'MCP server exited; it is started again on the next call')
  }

  /** A call timed out: if the server does not answer a ping either, it is hung and replaced. */
  #checkLiveness(live: LiveServer): void {
    live.client.ping({ timeout: this.#options.livenessTimeoutMs }).catch(() => {
      if (live.closed) return
      this.#options.logger?.warn({ server: this.name }, 'MCP server does not answer; killing it, it is started again on the next call')
      if (this.#current === live) this.#current = undefined
      this.#close(live, true)
    })
  }

  /** `kill` for a process that will not exit on its own; SIGKILL first, then the SDK's close. */
  #close(live: LiveServer, kill: boolean): void {
    // Once it closed, its pid may already belong to another process.
    if (kill && !live.closed) killProcess(live.pid)
    this.#track(live.client.close().catch(() => undefined))
  }

  /** stop() waits for every process this connection ever started. */
  #track(closing: Promise<void>): void {
    this.#closing.add(closing)
    void closing.finally(() => this.#closing.delete(closing))
  }
}

function killProcess(pid: number | null): void {
  if (pid === null) return
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

function raceAbort<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error)
    signal.addEventListener('abort', onAbort, { once: true })
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
