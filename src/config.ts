/**
 * @module Server configuration from environment variables, each also a `--flag` of
 * `toolexec` and `npm start -- ...` (flags win), all from one table that `--help` prints.
 * Refuses to expose the server without a token.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_REQUEST_TIMEOUT_MS } from './http/request-timeout.js'
import { DEFAULT_BACKLOG_BOUNDS } from './sessions/schedule-backlog.js'
import { DEFAULT_ARTIFACT_CALL_CAP_BYTES, DEFAULT_ARTIFACT_SESSION_CAP_BYTES } from './storage/capped-artifact-store.js'
import { parsedDatabaseUrl } from './storage/database-url.js'
import type { IdentityProviderSettings } from './sessions/token-keys.js'
import { SANDBOX_MODES, type SandboxMode } from './tools/bash/sandbox-probe.js'

export interface ServerConfig {
  readonly host: string
  readonly port: number
  readonly dataDir: string
  /** A postgres:// URL: the server stores in PostgreSQL; undefined: in the SQLite file of the data directory. */
  readonly databaseUrl: string | undefined
  readonly workspace: string
  readonly token: string | undefined
  /** Where artifact files are kept: by default in the data directory; on a cluster, one directory every server reads. */
  readonly artifactDir: string
  readonly configFile: string | undefined
  readonly fileConfig: Record<string, unknown>
  readonly corsOrigins: string[]
  readonly logLevel: string
  /** How log lines are written: `auto` (readable on a terminal, JSON otherwise), `json` or `pretty`. */
  readonly logFormat: LogFormat
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
  /** This server's name among the servers sharing one PostgreSQL database. */
  readonly nodeId: string
  /** Where the other servers of a cluster reach this one; undefined: its listening address. */
  readonly advertiseUrl: string | undefined
  /** How long a session stays leased to a server that stopped renewing it. */
  readonly leaseMs: number
  /** Where tokens of an identity provider are checked (TOOLEXEC_JWT_*); undefined: none are accepted. */
  readonly identityProvider: IdentityProviderSettings | undefined
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]
const MAX_QUEUED_SCHEDULES = 1_000_000
/** Within the 10 s a container stop allows, with room left to kill what still runs. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000
const MAX_SHUTDOWN_GRACE_MS = 600_000
const MIN_REQUEST_TIMEOUT_MS = 100
/** Oban's peers hold a lease of 30 s; half that lets a dead node's sessions move on sooner. */
export const DEFAULT_LEASE_MS = 15_000
const MIN_LEASE_MS = 1_000
const MAX_LEASE_MS = 600_000
const MAX_REQUEST_TIMEOUT_MS = 3_600_000
/** A shorter token can be guessed by trying; it is allowed (a local test setup) with a warning. */
export const MIN_TOKEN_LENGTH = 16

export interface Setting {
  /** The environment variable; the flag is the key of SETTINGS. */
  readonly env: string
  /** The value taken when neither the flag nor the variable is set; none when absent. */
  readonly fallback?: string
  /** How the default reads in `--help` and docs/configuration.md when it is not the fallback itself. */
  readonly shown?: string
  readonly help: string
}

/** Every setting, the one list `loadConfig`, `--help` and the configuration table of docs/configuration.md follow. */
export const SETTINGS = {
  host: { env: 'HOST', fallback: '127.0.0.1', help: 'listen address; a non-loopback address needs a token' },
  port: { env: 'PORT', fallback: '8787', help: 'listen port (0: any free port)' },
  'data-dir': { env: 'TOOLEXEC_DATA_DIR', fallback: '~/.toolexec', help: 'holds toolexec.db and the artifacts; one server at a time' },
  'artifact-dir': {
    env: 'TOOLEXEC_ARTIFACT_DIR',
    shown: '<data-dir>/cli/artifacts',
    help: 'where artifact files are kept; the servers of a cluster each name one shared directory, at the same path',
  },
  'database-url': {
    env: 'TOOLEXEC_DATABASE_URL',
    help: 'postgres://user:password@host:port/database to store in PostgreSQL instead of the SQLite file',
  },
  workspace: { env: 'TOOLEXEC_WORKSPACE', fallback: '.', shown: 'current directory', help: 'default workspace of new sessions; an existing directory' },
  token: {
    env: 'TOOLEXEC_TOKEN',
    help: `bearer token every route requires but /healthz, /openapi.json, /docs and the web console's page and assets (/, /console/) (${MIN_TOKEN_LENGTH} characters or more)`,
  },
  config: { env: 'TOOLEXEC_CONFIG', help: 'JSON config file: tools, MCP servers, hooks, rules, environment of commands' },
  'cors-origins': { env: 'TOOLEXEC_CORS_ORIGINS', help: 'comma-separated origins (http(s)://host[:port]) allowed to call from a browser' },
  'log-level': { env: 'LOG_LEVEL', fallback: 'info', help: `log level: ${LOG_LEVELS.join(', ')}` },
  'log-format': { env: 'TOOLEXEC_LOG_FORMAT', fallback: 'auto', help: 'log lines: auto (readable on a terminal, JSON otherwise), json or pretty' },
  'shutdown-grace-ms': {
    env: 'TOOLEXEC_SHUTDOWN_GRACE_MS',
    fallback: String(DEFAULT_SHUTDOWN_GRACE_MS),
    help: `how long Ctrl-C or SIGTERM lets running calls finish (0 to ${MAX_SHUTDOWN_GRACE_MS})`,
  },
  'max-queued-schedules-per-session': {
    env: 'TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION',
    fallback: String(DEFAULT_BACKLOG_BOUNDS.perSession),
    help: `schedules one session may have waiting to start; more are refused with 429 (1 to ${MAX_QUEUED_SCHEDULES})`,
  },
  'max-queued-schedules': {
    env: 'TOOLEXEC_MAX_QUEUED_SCHEDULES',
    fallback: String(DEFAULT_BACKLOG_BOUNDS.total),
    help: `schedules all sessions together may have waiting to start; more are refused with 429 (1 to ${MAX_QUEUED_SCHEDULES})`,
  },
  'request-timeout-ms': {
    env: 'TOOLEXEC_REQUEST_TIMEOUT_MS',
    fallback: String(DEFAULT_REQUEST_TIMEOUT_MS),
    help: `how long a request may take to arrive, headers and body, before a 408 (${MIN_REQUEST_TIMEOUT_MS} to ${MAX_REQUEST_TIMEOUT_MS})`,
  },
  'artifact-call-cap-bytes': { env: 'TOOLEXEC_ARTIFACT_CALL_CAP_BYTES', fallback: String(DEFAULT_ARTIFACT_CALL_CAP_BYTES), help: 'most bytes of artifacts one call may keep' },
  'artifact-session-cap-bytes': {
    env: 'TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES',
    fallback: String(DEFAULT_ARTIFACT_SESSION_CAP_BYTES),
    help: 'most bytes of artifacts one session may keep, all its calls together',
  },
  sandbox: { env: 'TOOLEXEC_SANDBOX', fallback: 'auto', help: `Bash's sandbox: ${SANDBOX_MODES.join(', ')}` },
  'node-id': { env: 'TOOLEXEC_NODE_ID', shown: 'host name and a digest of the data directory', help: "this server's name among the servers sharing one TOOLEXEC_DATABASE_URL (a cluster)" },
  'advertise-url': { env: 'TOOLEXEC_ADVERTISE_URL', shown: 'the listening address', help: 'where the other servers of a cluster reach this one: http(s)://host:port' },
  'lease-ms': {
    env: 'TOOLEXEC_LEASE_MS',
    fallback: String(DEFAULT_LEASE_MS),
    help: `how long a session stays with a server of a cluster that stopped renewing it, before another adopts it (${MIN_LEASE_MS} to ${MAX_LEASE_MS})`,
  },
  'jwt-issuer': {
    env: 'TOOLEXEC_JWT_ISSUER',
    help: "an identity provider's issuer URL: JWTs it signs are accepted next to API keys (needs TOOLEXEC_TOKEN, TOOLEXEC_JWT_AUDIENCE and one of TOOLEXEC_JWT_JWKS_URL and TOOLEXEC_JWT_KEY_FILE)",
  },
  'jwt-audience': { env: 'TOOLEXEC_JWT_AUDIENCE', help: "the audience a JWT must name: this server's URL as clients ask tokens for it (required with TOOLEXEC_JWT_ISSUER)" },
  'jwt-jwks-url': { env: 'TOOLEXEC_JWT_JWKS_URL', help: "the identity provider's JWK Set (https://, or http:// on loopback), fetched and cached" },
  'jwt-key-file': { env: 'TOOLEXEC_JWT_KEY_FILE', help: "a file with the identity provider's public key: PEM, or a JWK or JWK Set as JSON" },
} as const satisfies Record<string, Setting>

type SettingName = keyof typeof SETTINGS

const OPTIONS = {
  ...Object.fromEntries(Object.keys(SETTINGS).map((name) => [name, { type: 'string' as const }])),
  help: { type: 'boolean' as const, short: 'h' },
  version: { type: 'boolean' as const, short: 'v' },
}

function parseFlags(argv: readonly string[]): Record<string, string | boolean | undefined> {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }).values
}

/** `--help` or `--version` when the command line asks for one (the server then does not start). */
export function requestedInfo(argv: readonly string[]): 'help' | 'version' | undefined {
  const values = parseFlags(argv)
  if (values.help === true) return 'help'
  return values.version === true ? 'version' : undefined
}

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): ServerConfig {
  const values = parseFlags(argv)
  const given = (name: SettingName): string | undefined => {
    const value = values[name] ?? env[SETTINGS[name].env]
    return typeof value === 'string' && value.length > 0 ? value : undefined
  }
  const pick = (name: SettingName): string => given(name) ?? fallbackOf(name)
  const host = pick('host')
  const token = given('token')
  if (!isLoopback(host) && token === undefined) {
    throw new ConfigError(`Refusing to listen on ${host} without a token: set TOOLEXEC_TOKEN (or --token) or listen on 127.0.0.1.`)
  }
  const configFile = given('config')
  const dataDir = path.resolve(cwd, expandHome(pick('data-dir')))
  return {
    host,
    port: parsePort(pick('port')),
    dataDir,
    artifactDir: path.resolve(cwd, expandHome(given('artifact-dir') ?? path.join(dataDir, 'cli', 'artifacts'))),
    databaseUrl: parseDatabaseUrl(given('database-url')),
    workspace: path.resolve(cwd, expandHome(pick('workspace'))),
    token,
    configFile,
    fileConfig: configFile === undefined ? {} : readConfigFile(path.resolve(cwd, configFile)),
    corsOrigins: parseCorsOrigins(given('cors-origins') ?? ''),
    logLevel: parseLogLevel(pick('log-level')),
    logFormat: parseLogFormat(pick('log-format')),
    shutdownGraceMs: parseGraceMs(pick('shutdown-grace-ms')),
    maxQueuedSchedulesPerSession: parseCount('TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION', pick('max-queued-schedules-per-session')),
    maxQueuedSchedules: parseCount('TOOLEXEC_MAX_QUEUED_SCHEDULES', pick('max-queued-schedules')),
    requestTimeoutMs: parseRequestTimeoutMs(pick('request-timeout-ms')),
    artifactCallCapBytes: parseBytes('TOOLEXEC_ARTIFACT_CALL_CAP_BYTES', pick('artifact-call-cap-bytes')),
    artifactSessionCapBytes: parseBytes('TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES', pick('artifact-session-cap-bytes')),
    sandboxMode: parseSandboxMode(pick('sandbox')),
    nodeId: parseNodeId(given('node-id') ?? defaultNodeId(dataDir)),
    advertiseUrl: parseAdvertiseUrl(given('advertise-url')),
    leaseMs: parseLeaseMs(pick('lease-ms')),
    identityProvider: parseIdentityProvider(given, token, cwd),
  }
}

function fallbackOf(name: SettingName): string {
  const setting: Setting = SETTINGS[name]
  if (setting.fallback === undefined) throw new Error(`${name} has no default`)
  return setting.fallback
}

/** Warnings about a configuration that starts but should not stay as it is. */
export function configWarnings(config: ServerConfig): string[] {
  const warnings: string[] = []
  if (config.token !== undefined && config.token.length < MIN_TOKEN_LENGTH) {
    warnings.push(`TOOLEXEC_TOKEN is ${config.token.length} characters long; use ${MIN_TOKEN_LENGTH} or more (e.g. openssl rand -hex 32) so it cannot be guessed`)
  }
  return warnings
}

/** The text of `--help`: every flag with its variable, default and meaning, from SETTINGS. */
export function helpText(version: string): string {
  const entries = Object.entries(SETTINGS).map(([name, setting]: [string, Setting]) => {
    const shown = setting.shown ?? setting.fallback ?? 'none'
    return `  --${name} <value>\n      ${setting.env} (default: ${shown})\n      ${setting.help}\n`
  })
  return [
    `toolexec ${version}: a server that executes AI agents' tool calls.`,
    '',
    'Usage: toolexec [--flag value ...]    (from a checkout: npm start -- [--flag value ...])',
    '       toolexec audit verify [--head <hash>] [--data-dir <dir> | --database-url <url>]',
    "           checks the audit log's hash chain: exit 0 intact, 1 broken (or the kept head gone), 2 unreadable",
    '',
    'Each flag may also be given by its environment variable; the flag wins.',
    '',
    ...entries,
    '  -h, --help       print this help and exit',
    '  -v, --version    print the version and exit',
    '',
  ].join('\n')
}

function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value
}

/** A PostgreSQL URL, checked; an error never shows the password it may hold. */
function parseDatabaseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const parsed = parsedDatabaseUrl(value)
  if (parsed === undefined) {
    throw new ConfigError('TOOLEXEC_DATABASE_URL is not a URL: write postgres://user:password@host:port/database, or postgres://user@/database?host=/socket/dir')
  }
  const { protocol } = parsed
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new ConfigError(`TOOLEXEC_DATABASE_URL must be a postgres:// or postgresql:// URL, got one of scheme "${protocol.slice(0, -1)}"`)
  }
  return value
}

/** What a browser sends in `Origin`: scheme, host and a port other than the scheme's own, nothing else. */
function parseCorsOrigins(value: string): string[] {
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin.length > 0)
  for (const origin of origins) {
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined
    if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      const hint = parsed !== undefined && parsed.origin !== 'null' ? ` (did you mean "${parsed.origin}"?)` : ''
      throw new ConfigError(`TOOLEXEC_CORS_ORIGINS: "${origin}" is not an origin: write http(s)://host[:port] with no path, as a browser sends it${hint}`)
    }
  }
  return origins
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a whole number from 0 to 65535, got "${value}"`)
  return port
}

function parseGraceMs(value: string): number {
  const ms = Number(value)
  if (!/^\d+$/.test(value) || ms > MAX_SHUTDOWN_GRACE_MS) {
    throw new ConfigError(`TOOLEXEC_SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to ${MAX_SHUTDOWN_GRACE_MS}, got "${value}"`)
  }
  return ms
}

function parseCount(name: string, value: string): number {
  const count = Number(value)
  if (!/^\d+$/.test(value) || count < 1 || count > MAX_QUEUED_SCHEDULES) throw new ConfigError(`${name} must be a whole number from 1 to ${MAX_QUEUED_SCHEDULES}, got "${value}"`)
  return count
}

function parseRequestTimeoutMs(value: string): number {
  const ms = Number(value)
  if (!/^\d+$/.test(value) || ms < MIN_REQUEST_TIMEOUT_MS || ms > MAX_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`TOOLEXEC_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from ${MIN_REQUEST_TIMEOUT_MS} to ${MAX_REQUEST_TIMEOUT_MS}, got "${value}"`)
  }
  return ms
}

/**
 * The host's name and a digest of the data directory: unique, since two servers never share a
 * data directory, and the same after a restart, so that a server that crashed takes its own
 * sessions back at once instead of waiting for their leases to run out.
 */
export function defaultNodeId(dataDir: string): string {
  return `${os.hostname()}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 8)}`
}

function parseNodeId(value: string): string {
  if (!/^[\w.:@-]{1,128}$/.test(value)) throw new ConfigError(`TOOLEXEC_NODE_ID must be 1 to 128 letters, digits or . _ : @ -, got "${value}"`)
  return value
}

function parseAdvertiseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '') {
    throw new ConfigError(`TOOLEXEC_ADVERTISE_URL must be http(s)://host:port with no path, got "${value}"`)
  }
  return url.origin
}

function parseLeaseMs(value: string): number {
  const ms = Number(value)
  if (!/^\d+$/.test(value) || ms < MIN_LEASE_MS || ms > MAX_LEASE_MS) {
    throw new ConfigError(`TOOLEXEC_LEASE_MS must be a whole number of milliseconds from ${MIN_LEASE_MS} to ${MAX_LEASE_MS}, got "${value}"`)
  }
  return ms
}

const JWT_SETTINGS = ['jwt-audience', 'jwt-jwks-url', 'jwt-key-file'] as const

/**
 * The identity provider's settings, all or none. The audience has no default: the address the
 * server listens on is rarely the URL clients reach it by, and a token meant for another
 * server must never pass here.
 */
function parseIdentityProvider(given: (name: SettingName) => string | undefined, token: string | undefined, cwd: string): IdentityProviderSettings | undefined {
  const issuer = given('jwt-issuer')
  if (issuer === undefined) {
    const stray = JWT_SETTINGS.find((name) => given(name) !== undefined)
    if (stray !== undefined) throw new ConfigError(`${SETTINGS[stray].env} is set but TOOLEXEC_JWT_ISSUER is not: set the issuer too, or leave the TOOLEXEC_JWT_* settings out`)
    return undefined
  }
  if (!isHttpUrl(issuer)) throw new ConfigError(`TOOLEXEC_JWT_ISSUER must be the identity provider's issuer URL, http(s)://..., got "${issuer}"`)
  // Without a token the server checks no credential at all: a JWT would open nothing that is not open already.
  if (token === undefined) throw new ConfigError('TOOLEXEC_JWT_ISSUER needs TOOLEXEC_TOKEN: without a token the server checks no credential, so it would accept no JWT either')
  const audience = given('jwt-audience')
  if (audience === undefined) throw new ConfigError('TOOLEXEC_JWT_ISSUER needs TOOLEXEC_JWT_AUDIENCE: the audience tokens for this server name, usually its URL (e.g. https://toolexec.example.com)')
  const jwksUrl = given('jwt-jwks-url')
  const keyFile = given('jwt-key-file')
  if ((jwksUrl === undefined) === (keyFile === undefined)) {
    throw new ConfigError("TOOLEXEC_JWT_ISSUER needs exactly one of TOOLEXEC_JWT_JWKS_URL (the identity provider's JWK Set) and TOOLEXEC_JWT_KEY_FILE (its public key in a file)")
  }
  return { issuer, audience, jwksUrl: jwksUrl === undefined ? undefined : parseJwksUrl(jwksUrl), keyFile: keyFile === undefined ? undefined : path.resolve(cwd, expandHome(keyFile)) }
}

function isHttpUrl(value: string): boolean {
  const url = URL.canParse(value) ? new URL(value) : undefined
  return url !== undefined && (url.protocol === 'https:' || url.protocol === 'http:')
}

/** Keys fetched over plain HTTP could be swapped on the way: only a provider on this machine may serve them so. */
function parseJwksUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url?.protocol === 'https:' || (url?.protocol === 'http:' && isLoopback(url.hostname))) return url.href
  throw new ConfigError(`TOOLEXEC_JWT_JWKS_URL must be an https:// URL (http:// only on a loopback address), got "${value}"`)
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
  if (!LOG_LEVELS.includes(value)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`)
  return value
}

function parseLogFormat(value: string): LogFormat {
  const format = LOG_FORMATS.find((candidate) => candidate === value)
  if (format === undefined) throw new ConfigError(`TOOLEXEC_LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got "${value}"`)
  return format
}

/** `auto` is for a person at a terminal (readable lines) or for a file, a pipe or a log collector (JSON lines). */
export function effectiveLogFormat(format: LogFormat, stdoutIsTerminal: boolean): 'json' | 'pretty' {
  if (format !== 'auto') return format
  return stdoutIsTerminal ? 'pretty' : 'json'
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
