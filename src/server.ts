/** @module Starting and stopping one toolexec server: runtime, recovery, HTTP. */
import type { FastifyInstance } from 'fastify'
import { pino, type Logger } from 'pino'
import type { ServerConfig } from './config.js'
import type { HookRunner, PermissionService } from './contracts/ports.js'
import type { ToolEntry } from './contracts/tool-entry.js'
import { buildApp } from './http/app.js'
import { ruleCommandSplitter } from './permissions/command-splitter.js'
import { loadPolicy } from './permissions/policy.js'
import type { StreamLimits } from './http/session-stream.js'
import { createRuntime, type Runtime } from './sessions/runtime.js'

export interface ServerParts {
  readonly tools: readonly ToolEntry[]
  readonly hooks?: HookRunner | undefined
  readonly permissions?: PermissionService | undefined
  readonly logger?: Logger | undefined
  readonly heartbeatMs?: number | undefined
  readonly streamLimits?: StreamLimits | undefined
}

export interface RunningServer {
  readonly app: FastifyInstance
  readonly runtime: Runtime
  readonly url: string
  close(): Promise<void>
}

export async function startServer(config: ServerConfig, parts: ServerParts): Promise<RunningServer> {
  const logger = parts.logger ?? pino({ level: config.logLevel })
  const policy = loadPolicy(config.fileConfig, config.configFile ?? 'TOOLEXEC_CONFIG', ruleCommandSplitter)
  const runtime = createRuntime({
    dataDir: config.dataDir,
    workspace: config.workspace,
    tools: parts.tools,
    logger,
    hooks: parts.hooks,
    permissions: parts.permissions,
    policy,
  })
  const app = await buildApp({
    runtime,
    logger,
    token: config.token,
    corsOrigins: config.corsOrigins,
    heartbeatMs: parts.heartbeatMs,
    streamLimits: parts.streamLimits,
  })
  const report = runtime.recover()
  if (report.schedules > 0) logger.info(report, 'recovered unfinished schedules')
  const address = await app.listen({ host: config.host, port: config.port })
  logger.info({ url: address, dataDir: config.dataDir }, 'toolexec listening')
  let closing: Promise<void> | undefined
  return {
    app,
    runtime,
    url: address,
    close: () => {
      closing ??= app.close().then(() => runtime.close())
      return closing
    },
  }
}
