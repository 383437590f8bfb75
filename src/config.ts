/**
 * @module Server configuration from environment variables, each also a `--flag` of
 * `npm start -- ...` (flags win). Refuses to expose the server without a token.
 */
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_BACKLOG_BOUNDS } from './sessions/schedule-backlog.js'
import { DEFAULT_ARTIFACT_CALL_CAP_BYTES, DEFAULT_ARTIFACT_SESSION_CAP_BYTES } from './storage/capped-artifact-store.js'
import { SANDBOX_MODES, type SandboxMode } from './tools/bash/sandbox-probe.js'

export interface ServerConfig {
  readonly host: string
  readonly port: number
  readonly dataDir: string
  readonly workspace: string
  readonly token: string | undefined
  readonly configFile: string | undefined
  readonly fileConfig: Record<string, unknown>
  readonly corsOrigins: string[]
  readonly logLevel: string
  /** How long SIGTERM or SIGINT lets running calls finish before stopping them. */
  readonly shutdownGraceMs: number
  /** Schedules one session may have waiting to start; more are refused with 429. */
  readonly maxQueuedSchedulesPerSession: number
  /** Schedules all sessions together may have waiting to start; more are refused with 429. */
  readonly maxQueuedSchedules: number
  /** How long a request may take to arrive, headers and body, before it is answered 408 and closed. */
  readonly requestTimeoutMs: number
  /** How many bytes of artifacts one call may keep. */
  readonly artifactCallCapBytes: number
  /** How many bytes of artifacts one session may keep. */
  readonly artifactSessionCapBytes: number
  /** Whether Bash commands run in a sandbox: `off`, `auto` (where one can start) or `required`. */
  readonly sandboxMode: SandboxMode
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

const FLAGS = {
  host: { env: 'HOST' },
  port: { env: 'PORT' },
  'data-dir': { env: 'TOOLEXEC_DATA_DIR' },
  workspace: { env: 'TOOLEXEC_WORKSPACE' },
  token: { env: 'TOOLEXEC_TOKEN' },
  config: { env: 'TOOLEXEC_CONFIG' },
  'cors-origins': { env: 'TOOLEXEC_CORS_ORIGINS' },
  'log-level': { env: 'LOG_LEVEL' },
  'shutdown-grace-ms': { env: 'TOOLEXEC_SHUTDOWN_GRACE_MS' },
  'max-queued-schedules-per-session': { env: 'TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION' },
  'max-queued-schedules': { env: 'TOOLEXEC_MAX_QUEUED_SCHEDULES' },
  'request-timeout-ms': { env: 'TOOLEXEC_REQUEST_TIMEOUT_MS' },
  'artifact-call-cap-bytes': { env: 'TOOLEXEC_ARTIFACT_CALL_CAP_BYTES' },
  'artifact-session-cap-bytes': { env: 'TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES' },
  sandbox: { env: 'TOOLEXEC_SANDBOX' },
} as const

type FlagName = keyof typeof FLAGS
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): ServerConfig {
  const options = Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: 'string' as const }]))
  const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false })
  const pick = (name: FlagName): string | undefined => {
    const value = values[name] ?? env[FLAGS[name].env]
    return typeof value === 'string' && value.length > 0 ? value : undefined
  }
  const host = pick('host') ?? '127.0.0.1'
  const token = pick('token')
  if (!isLoopback(host) && token === undefined) {
    throw new ConfigError(`Refusing to listen on ${host} without a token: set TOOLEXEC_TOKEN (or --token) or listen on 127.0.0.1.`)
  }
  const configFile = pick('config')
  return {
    host,
    port: parsePort(pick('port') ?? '8787'),
    dataDir: path.resolve(cwd, pick('data-dir') ?? path.join(os.homedir(), '.toolexec')),
    workspace: path.resolve(cwd, pick('workspace') ?? '.'),
    token,
    configFile,
    fileConfig: configFile === undefined ? {} : readConfigFile(path.resolve(cwd, configFile)),
    corsOrigins: (pick('cors-origins') ?? '').split(',').map((o) => o.trim()).filter((o) => o.length > 0),
    logLevel: parseLogLevel(pick('log-level') ?? 'info'),
    shutdownGraceMs: parseGraceMs(pick('shutdown-grace-ms') ?? String(DEFAULT_SHUTDOWN_GRACE_MS)),
    maxQueuedSchedulesPerSession: parseCount('TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION', pick('max-queued-schedules-per-session'), DEFAULT_BACKLOG_BOUNDS.perSession),
    maxQueuedSchedules: parseCount('TOOLEXEC_MAX_QUEUED_SCHEDULES', pick('max-queued-schedules'), DEFAULT_BACKLOG_BOUNDS.total),
    requestTimeoutMs: parseRequestTimeoutMs(pick('request-timeout-ms') ?? String(DEFAULT_REQUEST_TIMEOUT_MS)),
    artifactCallCapBytes: parseBytes('TOOLEXEC_ARTIFACT_CALL_CAP_BYTES', pick('artifact-call-cap-bytes') ?? String(DEFAULT_ARTIFACT_CALL_CAP_BYTES)),
    artifactSessionCapBytes: parseBytes('TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES', pick('artifact-session-cap-bytes') ?? String(DEFAULT_ARTIFACT_SESSION_CAP_BYTES)),
    sandboxMode: parseSandboxMode(pick('sandbox') ?? 'auto'),
  }
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a whole number from 0 to 65535, got "${value}"`)
  return port
}

/** Within the 10 s a container stop allows, with room left to kill what still runs. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000
const MAX_SHUTDOWN_GRACE_MS = 600_000

function parseGraceMs(value: string): number {
  const ms = Number(value)
  if (!/^\d+$/.test(value) || ms > MAX_SHUTDOWN_GRACE_MS) {
    throw new ConfigError(`TOOLEXEC_SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to ${MAX_SHUTDOWN_GRACE_MS}, got "${value}"`)
  }
  return ms
}

const MAX_QUEUED_SCHEDULES = 1_000_000

function parseCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const count = Number(value)
  if (!/^\d+$/.test(value) || count < 1 || count > MAX_QUEUED_SCHEDULES) throw new ConfigError(`${name} must be a whole number from 1 to ${MAX_QUEUED_SCHEDULES}, got "${value}"`)
  return count
}

/** Time enough for a 10 MiB body on a slow link; a client dripping one byte at a time holds nothing longer. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
const MIN_REQUEST_TIMEOUT_MS = 100
const MAX_REQUEST_TIMEOUT_MS = 3_600_000

function parseRequestTimeoutMs(value: string): number {
  const ms = Number(value)
  if (!/^\d+$/.test(value) || ms < MIN_REQUEST_TIMEOUT_MS || ms > MAX_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`TOOLEXEC_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from ${MIN_REQUEST_TIMEOUT_MS} to ${MAX_REQUEST_TIMEOUT_MS}, got "${value}"`)
  }
  return ms
}

function parseBytes(name: string, value: string): number {
  const bytes = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(bytes)) throw new ConfigError(`${name} must be a whole number of bytes, got "${value}"`)
  return bytes
}

function parseSandboxMode(value: string): SandboxMode {
  const mode = SANDBOX_MODES.find((candidate) => candidate === value)
  if (mode === undefined) throw new ConfigError(`TOOLEXEC_SANDBOX must be one of ${SANDBOX_MODES.join(', ')}, got "${value}"`)
  return mode
}

function parseLogLevel(value: string): string {
  if (!LOG_LEVELS.has(value)) throw new ConfigError(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}, got "${value}"`)
  return value
}

function readConfigFile(file: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new ConfigError(`TOOLEXEC_CONFIG ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`TOOLEXEC_CONFIG ${file}: the file must hold a JSON object`)
  }
  return parsed as Record<string, unknown>
}
