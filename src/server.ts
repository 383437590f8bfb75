/** @module Starting and stopping one toolexec server: policy, tools, runtime, recovery, HTTP. */
import type { FastifyInstance } from 'fastify'
import { pino, type Logger } from 'pino'
import { effectiveLogFormat, type ServerConfig } from './config.js'
import { redactedDatabaseUrl } from './storage/database-url.js'
import type { HookRunner, PermissionService } from './contracts/ports.js'
import type { ToolEntry } from './contracts/tool-entry.js'
import { buildApp } from './http/app.js'
import type { StreamLimits } from './http/session-stream.js'
import { ruleCommandSplitter } from './permissions/command-splitter.js'
import { loadPolicy } from './permissions/policy.js'
import { createRuntime, type Runtime } from './wiring.js'
import type { CloseOptions } from './sessions/shutdown.js'
import { CommandEnvironment } from './processes/command-environment.js'
import { closeGrepPool } from './tools/grep/grep-pool.js'
import { createHttpTool } from './tools/http-tool/index.js'
import type { McpManager, McpManagerOptions } from './tools/mcp/mcp-manager.js'
import type { McpServerEntry } from './contracts/tool-config.js'
import { parseToolConfig } from './tools/tool-config.js'
import type { StorageSpaceOptions } from './storage/storage-space.js'
import { parseSandboxConfig } from './tools/bash/sandbox-config.js'
import { probeSandbox, sandboxSummary, type SandboxStatus } from './tools/bash/sandbox-probe.js'
import { serverPaths } from './tools/bash/server-paths.js'
import { installHolding } from './sessions/session-workspace.js'
import { tokenKeys } from './sessions/token-keys.js'
import { TokenVerifier } from './sessions/token-verifier.js'
import { StartPhases } from './start-phases.js'

// A warning, not a refused start: `npm start` in the checkout is the first command a user runs,
// and the console, the docs and sessions that name their workspace all work.
const DEFAULT_WORKSPACE_IN_INSTALL =
  "The default workspace is the server's own install directory: a session that names no workspace is refused (400 API_ERR_WORKSPACE_IN_INSTALL); set TOOLEXEC_WORKSPACE (--workspace) to the directory sessions should work in"

export interface ServerParts {
  readonly tools: readonly ToolEntry[]
  readonly hooks?: HookRunner | undefined
  readonly permissions?: PermissionService | undefined
  readonly logger?: Logger | undefined
  readonly heartbeatMs?: number | undefined
  readonly streamLimits?: StreamLimits | undefined
  readonly mcp?: McpManagerOptions | undefined
  /** How the data directory's free space is told (tests give their own). */
  readonly storageSpace?: StorageSpaceOptions | undefined
  /** Whether Bash commands are confined; probed in the config's mode when absent. Give the same to createBashTool. */
  readonly sandbox?: SandboxStatus | undefined
  /** The start's clock, begun by the caller (the command marks its own phases first); logged at debug level once listening. */
  readonly phases?: StartPhases | undefined
}

export interface RunningServer {
  readonly app: FastifyInstance
  readonly runtime: Runtime
  readonly url: string
  /** Stops listening, lets running calls finish within `graceMs` (default 0), then stops the rest. */
  close(options?: CloseOptions): Promise<void>
}

export async function startServer(config: ServerConfig, parts: ServerParts): Promise<RunningServer> {
  const phases = parts.phases ?? new StartPhases()
  const logger = parts.logger ?? (await serverLogger(config))
  const configFile = config.configFile ?? 'TOOLEXEC_CONFIG'
  // Both are checked before anything starts: a malformed file is refused with the reason.
  const policy = loadPolicy(config.fileConfig, configFile, ruleCommandSplitter)
  const toolConfig = parseToolConfig(config.fileConfig, configFile)
  const commandEnvironment = new CommandEnvironment(process.env, toolConfig.environment, config.token)
  const sandboxSettings = parseSandboxConfig(config.fileConfig, configFile)
  // A key file that holds no usable public key refuses the start, before anything opens.
  const identityTokens = config.identityProvider === undefined ? undefined : new TokenVerifier(config.identityProvider, tokenKeys(config.identityProvider))
  phases.mark('config')
  const sandbox = parts.sandbox ?? probeSandbox(config.sandboxMode)
  phases.mark('sandbox')
  const mcp = await mcpManager(toolConfig.mcpServers, { logger, environment: commandEnvironment, ...parts.mcp })
  const statuses = await mcp.start()
  if (statuses.length > 0) logger.info({ servers: statuses }, 'mcp servers')
  phases.mark('mcp')
  let opened: Runtime | undefined
  try {
    const tools = [...parts.tools, ...toolConfig.httpTools.map((definition) => createHttpTool(definition)), ...mcp.tools()]
    const hiddenPaths = serverPaths({ dataDir: config.dataDir, artifactDir: config.artifactDir, configFile: config.configFile, env: process.env })
    const runtime = await createRuntime({
      dataDir: config.dataDir,
      artifactDir: config.artifactDir,
      databaseUrl: config.databaseUrl,
      workspace: config.workspace,
      tools,
      logger,
      hooks: parts.hooks,
      permissions: parts.permissions,
      policy,
      commandEnvironment,
      scheduleBacklog: { perSession: config.maxQueuedSchedulesPerSession, total: config.maxQueuedSchedules },
      artifactCaps: { perCallBytes: config.artifactCallCapBytes, perSessionBytes: config.artifactSessionCapBytes },
      storageSpace: parts.storageSpace,
      sandbox: { status: sandbox, settings: sandboxSettings, hiddenPaths },
      cluster: { nodeId: config.nodeId, leaseMs: config.leaseMs },
    })
    opened = runtime
    phases.mark('storage')
    const app = await buildApp({
      runtime,
      logger,
      token: config.token,
      identityTokens,
      corsOrigins: config.corsOrigins,
      heartbeatMs: parts.heartbeatMs,
      streamLimits: parts.streamLimits,
      requestTimeoutMs: config.requestTimeoutMs,
    })
    phases.mark('http')
    const report = await runtime.recover()
    if (report.schedules > 0) logger.info(report, 'recovered unfinished schedules')
    phases.mark('recovery')
    const address = await app.listen({ host: config.host, port: config.port })
    phases.mark('listen')
    await runtime.joinCluster(config.advertiseUrl ?? address)
    phases.mark('cluster')
    // What an operator checks first; the token itself, and the database's password, never reach a log.
    const database = config.databaseUrl === undefined ? runtime.database.backend : redactedDatabaseUrl(config.databaseUrl)
    const listening = {
      url: address,
      console: `${address}/`,
      tokenRequired: config.token !== undefined,
      identityProvider: config.identityProvider?.issuer,
      corsOrigins: config.corsOrigins,
      workspace: config.workspace,
      dataDir: config.dataDir,
      database,
    }
    logger.info({ ...listening, sandbox: sandboxSummary(sandbox) }, 'toolexec listening')
    logger.debug(phases.report(), 'start phases')
    const install = installHolding(config.workspace)
    if (install !== undefined) logger.warn({ workspace: config.workspace, install }, DEFAULT_WORKSPACE_IN_INSTALL)
    if (!sandbox.confined) logger.warn({ reason: sandbox.reason }, 'Bash commands are not confined: only strictly read-only commands run without asking')
    let closing: Promise<void> | undefined
    return {
      app,
      runtime,
      url: address,
      close: (options) => {
        // First of all: a call that becomes ready while requests are being closed must not start.
        if (closing === undefined) runtime.stopStartingCalls()
        closing ??= app
          .close()
          .then(() => runtime.close(options))
          .then((report) => logger.info({ ...report, graceMs: options?.graceMs ?? 0 }, 'toolexec stopped'))
          .finally(() => Promise.all([mcp.stop(), closeGrepPool()]))
        return closing
      },
    }
  } catch (error) {
    // A start that fails after the runtime opened (the port taken, say) gives the data directory back.
    await opened?.close()
    await mcp.stop()
    throw error
  }
}

type McpServers = Pick<McpManager, 'start' | 'tools' | 'stop'>

const NO_MCP_SERVERS: McpServers = { start: () => Promise.resolve([]), tools: () => [], stop: () => Promise.resolve() }

/** The configured MCP servers; the MCP SDK (and the ajv and zod it brings) is loaded only when there is one. */
async function mcpManager(servers: readonly McpServerEntry[], options: McpManagerOptions): Promise<McpServers> {
  if (servers.length === 0) return NO_MCP_SERVERS
  const { McpManager } = await import('./tools/mcp/mcp-manager.js')
  return new McpManager(servers, options)
}

/**
 * JSON lines, or one readable line per entry (`pretty`, or `auto` on a terminal). The pretty
 * stream writes synchronously in this thread, not in a transport's worker, so that the lines
 * of a stop are out before the process exits.
 */
async function serverLogger(config: ServerConfig): Promise<Logger> {
  if (effectiveLogFormat(config.logFormat, process.stdout.isTTY === true) === 'json') return pino({ level: config.logLevel })
  const { default: pinoPretty } = await import('pino-pretty')
  const stream = pinoPretty({ sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l', messageFormat: readableMessage })
  return pino({ level: config.logLevel }, stream)
}

/** The start line says where to go; every other line shows its message as logged. */
function readableMessage(log: Record<string, unknown>, messageKey: string): string {
  const message = String(log[messageKey])
  if (message !== 'toolexec listening') return message
  return `toolexec listening on ${String(log.url)} — open the console at ${String(log.console)}`
}
