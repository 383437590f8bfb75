import { rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, defaultNodeId, configWarnings, effectiveLogFormat, helpText, isLoopback, loadConfig, MIN_TOKEN_LENGTH, requestedInfo, SETTINGS, type Setting } from '../src/config.js'
import { redactedDatabaseUrl } from '../src/storage/database-url.js'
import { tempDir } from './support/temp-dirs.js'

const CWD = '/srv/app'
let dir: string

beforeAll(async () => {
  dir = await tempDir('config')
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function configFile(name: string, text: string): Promise<string> {
  const file = path.join(dir, name)
  await writeFile(file, text)
  return file
}

function refusal(argv: string[], env: NodeJS.ProcessEnv): Error {
  try {
    loadConfig(argv, env, CWD)
  } catch (error) {
    return error as Error
  }
  throw new Error('expected loadConfig to refuse')
}

describe('loadConfig', () => {
  it('uses the defaults when nothing is set', () => {
    expect(loadConfig([], {}, CWD)).toEqual({
      host: '127.0.0.1',
      port: 8787,
      dataDir: path.join(os.homedir(), '.toolexec'),
      artifactDir: path.join(os.homedir(), '.toolexec', 'cli', 'artifacts'),
      workspace: CWD,
      token: undefined,
      configFile: undefined,
      fileConfig: {},
      corsOrigins: [],
      logLevel: 'info',
      logFormat: 'auto',
      shutdownGraceMs: 5_000,
      maxQueuedSchedulesPerSession: 100,
      maxQueuedSchedules: 5_000,
      requestTimeoutMs: 30_000,
      artifactCallCapBytes: 1024 ** 3,
      artifactSessionCapBytes: 4 * 1024 ** 3,
      sandboxMode: 'auto',
      databaseUrl: undefined,
      // Stable across restarts of the same data directory, and unlike any other server's.
      nodeId: defaultNodeId(path.join(os.homedir(), '.toolexec')),
      advertiseUrl: undefined,
      leaseMs: 15_000,
    })
    expect(defaultNodeId('/a')).toMatch(new RegExp(`^${os.hostname()}-[0-9a-f]{8}$`))
    expect(defaultNodeId('/a')).not.toBe(defaultNodeId('/b'))
  })

  it('reads every setting from the environment, resolving paths against the working directory', async () => {
    const file = await configFile('env.json', '{"tools":{"Bash":{"enabled":false}}}')
    const config = loadConfig(
      [],
      {
        HOST: '0.0.0.0',
        PORT: '9000',
        TOOLEXEC_DATA_DIR: 'data',
        TOOLEXEC_ARTIFACT_DIR: '/mnt/shared/artifacts',
        TOOLEXEC_WORKSPACE: '../ws',
        TOOLEXEC_TOKEN: 'secret',
        TOOLEXEC_CONFIG: file,
        TOOLEXEC_CORS_ORIGINS: 'http://a.example, http://b.example ,',
        LOG_LEVEL: 'debug',
        TOOLEXEC_LOG_FORMAT: 'pretty',
        TOOLEXEC_SHUTDOWN_GRACE_MS: '0',
        TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION: '7',
        TOOLEXEC_MAX_QUEUED_SCHEDULES: '70',
        TOOLEXEC_REQUEST_TIMEOUT_MS: '2500',
        TOOLEXEC_ARTIFACT_CALL_CAP_BYTES: '1000',
        TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES: '0',
        TOOLEXEC_SANDBOX: 'required',
        TOOLEXEC_NODE_ID: 'node-1.eu',
        TOOLEXEC_ADVERTISE_URL: 'http://10.0.0.5:8787/',
        TOOLEXEC_LEASE_MS: '5000',
      },
      CWD,
    )
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/srv/app/data',
      artifactDir: '/mnt/shared/artifacts',
      workspace: '/srv/ws',
      token: 'secret',
      configFile: file,
      fileConfig: { tools: { Bash: { enabled: false } } },
      corsOrigins: ['http://a.example', 'http://b.example'],
      logLevel: 'debug',
      logFormat: 'pretty',
      shutdownGraceMs: 0,
      maxQueuedSchedulesPerSession: 7,
      maxQueuedSchedules: 70,
      requestTimeoutMs: 2_500,
      artifactCallCapBytes: 1000,
      artifactSessionCapBytes: 0,
      sandboxMode: 'required',
      databaseUrl: undefined,
      nodeId: 'node-1.eu',
      advertiseUrl: 'http://10.0.0.5:8787',
      leaseMs: 5_000,
    })
  })

  it.each([
    ['TOOLEXEC_NODE_ID', 'has space'],
    ['TOOLEXEC_ADVERTISE_URL', 'ftp://x'],
    ['TOOLEXEC_ADVERTISE_URL', 'http://x/path'],
    ['TOOLEXEC_LEASE_MS', '999'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig([], { [name]: value }, CWD)).toThrow(name)
  })

  it.each([
    ['--host', 'HOST', '127.0.0.2', '127.0.0.3', 'host', '127.0.0.3'],
    ['--port', 'PORT', '1000', '2000', 'port', 2000],
    ['--data-dir', 'TOOLEXEC_DATA_DIR', '/from/env', '/from/flag', 'dataDir', '/from/flag'],
    ['--workspace', 'TOOLEXEC_WORKSPACE', '/env/ws', '/flag/ws', 'workspace', '/flag/ws'],
    ['--token', 'TOOLEXEC_TOKEN', 'env-token', 'flag-token', 'token', 'flag-token'],
    ['--cors-origins', 'TOOLEXEC_CORS_ORIGINS', 'http://env.example', 'http://flag.example', 'corsOrigins', ['http://flag.example']],
    ['--log-level', 'LOG_LEVEL', 'warn', 'trace', 'logLevel', 'trace'],
    ['--log-format', 'TOOLEXEC_LOG_FORMAT', 'pretty', 'json', 'logFormat', 'json'],
    ['--shutdown-grace-ms', 'TOOLEXEC_SHUTDOWN_GRACE_MS', '100', '200', 'shutdownGraceMs', 200],
    ['--max-queued-schedules-per-session', 'TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION', '10', '20', 'maxQueuedSchedulesPerSession', 20],
    ['--max-queued-schedules', 'TOOLEXEC_MAX_QUEUED_SCHEDULES', '10', '20', 'maxQueuedSchedules', 20],
    ['--request-timeout-ms', 'TOOLEXEC_REQUEST_TIMEOUT_MS', '1000', '2000', 'requestTimeoutMs', 2000],
    ['--artifact-call-cap-bytes', 'TOOLEXEC_ARTIFACT_CALL_CAP_BYTES', '100', '200', 'artifactCallCapBytes', 200],
    ['--artifact-session-cap-bytes', 'TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES', '100', '200', 'artifactSessionCapBytes', 200],
    ['--sandbox', 'TOOLEXEC_SANDBOX', 'off', 'required', 'sandboxMode', 'required'],
  ])('a flag %s wins over %s', (flag, variable, fromEnv, fromFlag, key, expected) => {
    const config = loadConfig([flag, fromFlag], { [variable]: fromEnv }, CWD)
    expect(config[key as keyof typeof config]).toEqual(expected)
    const envOnly = loadConfig([], { [variable]: fromEnv }, CWD)
    expect(envOnly[key as keyof typeof envOnly]).not.toEqual(expected)
  })

  it('takes --flag=value as well and treats an empty variable as unset', () => {
    const config = loadConfig(['--port=0'], { PORT: '', HOST: '', LOG_LEVEL: '' }, CWD)
    expect(config).toMatchObject({ port: 0, host: '127.0.0.1', logLevel: 'info' })
  })

  it.each(['0.0.0.0', '192.168.1.20', '::', 'example.com'])('refuses to listen on %s without a token, with a clear message', (host) => {
    const error = refusal([], { HOST: host })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`Refusing to listen on ${host} without a token: set TOOLEXEC_TOKEN (or --token) or listen on 127.0.0.1.`)
    expect(loadConfig(['--token', 't'], { HOST: host }, CWD).host).toBe(host)
  })

  it.each(['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])('listens on loopback %s without a token', (host) => {
    expect(isLoopback(host)).toBe(true)
    expect(loadConfig([], { HOST: host }, CWD).token).toBeUndefined()
  })

  it.each(['abc', '-1', '65536', '80.5', 'NaN'])('refuses PORT=%s', (port) => {
    const error = refusal([], { PORT: port })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`PORT must be a whole number from 0 to 65535, got "${port}"`)
  })

  it.each(['verbose', 'INFO', 'warning'])('refuses LOG_LEVEL=%s, naming the levels it takes', (level) => {
    const error = refusal([], { LOG_LEVEL: level })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${level}"`)
  })

  it.each(['text', 'JSON', 'human'])('refuses TOOLEXEC_LOG_FORMAT=%s, naming the formats it takes', (format) => {
    const error = refusal([], { TOOLEXEC_LOG_FORMAT: format })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`TOOLEXEC_LOG_FORMAT must be one of auto, json, pretty, got "${format}"`)
  })

  it.each([
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('log format %s with standard output a terminal: %s writes %s lines', (format, terminal, written) => {
    expect(effectiveLogFormat(format, terminal)).toBe(written)
  })

  it.each(['-1', '1.5', '5s', '600001'])('refuses TOOLEXEC_SHUTDOWN_GRACE_MS=%s', (value) => {
    const error = refusal([], { TOOLEXEC_SHUTDOWN_GRACE_MS: value })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`TOOLEXEC_SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to 600000, got "${value}"`)
  })

  it.each([
    ['TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION', '0'],
    ['TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION', '1.5'],
    ['TOOLEXEC_MAX_QUEUED_SCHEDULES', '-1'],
    ['TOOLEXEC_MAX_QUEUED_SCHEDULES', '1000001'],
  ])('refuses %s=%s', (variable, value) => {
    const error = refusal([], { [variable]: value })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`${variable} must be a whole number from 1 to 1000000, got "${value}"`)
  })

  it.each(['99', '30s', '3600001'])('refuses TOOLEXEC_REQUEST_TIMEOUT_MS=%s', (value) => {
    const error = refusal([], { TOOLEXEC_REQUEST_TIMEOUT_MS: value })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`TOOLEXEC_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 100 to 3600000, got "${value}"`)
  })

  it.each(['-1', '1.5', '1G', '99999999999999999'])('refuses an artifact cap of %s bytes', (value) => {
    const error = refusal([], { TOOLEXEC_ARTIFACT_CALL_CAP_BYTES: value })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`TOOLEXEC_ARTIFACT_CALL_CAP_BYTES must be a whole number of bytes, got "${value}"`)
  })

  it.each(['on', 'OFF', 'true'])('refuses TOOLEXEC_SANDBOX=%s, naming the modes it takes', (value) => {
    const error = refusal([], { TOOLEXEC_SANDBOX: value })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`TOOLEXEC_SANDBOX must be one of off, auto, required, got "${value}"`)
  })

  it('refuses a TOOLEXEC_CONFIG that is not JSON, naming the file', async () => {
    const file = await configFile('broken.json', '{"tools": ')
    const error = refusal([], { TOOLEXEC_CONFIG: file })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message.startsWith(`TOOLEXEC_CONFIG ${file}: `)).toBe(true)
    expect(error.message).toMatch(/JSON/)
  })

  it.each([
    ['an array', '[1, 2]'],
    ['a number', '42'],
    ['null', 'null'],
    ['a string', '"tools"'],
  ])('refuses a TOOLEXEC_CONFIG holding %s', async (name, text) => {
    const file = await configFile(`${name.replace(/\W/g, '')}.json`, text)
    const error = refusal([], { TOOLEXEC_CONFIG: file })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`TOOLEXEC_CONFIG ${file}: the file must hold a JSON object`)
  })

  it('refuses a TOOLEXEC_CONFIG that does not exist', () => {
    const file = path.join(dir, 'missing.json')
    const error = refusal([], { TOOLEXEC_CONFIG: file })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toMatch(new RegExp(`^TOOLEXEC_CONFIG ${file}: .*ENOENT`))
  })

  it('refuses an unknown flag or a stray argument with a coded error', () => {
    expect(() => loadConfig(['--prot', '80'], {}, CWD)).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }))
    expect(() => loadConfig(['serve'], {}, CWD)).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' }))
  })
})

describe('TOOLEXEC_DATABASE_URL', () => {
  it('is unset by default: the server stores in the SQLite file of the data directory', () => {
    expect(loadConfig([], {}, CWD).databaseUrl).toBeUndefined()
  })

  it.each([
    'postgres://toolexec:secret@db.internal:5432/toolexec',
    'postgresql://localhost/toolexec',
    'postgres:///toolexec?host=/run/postgresql',
    'postgres://toolexec@/toolexec?host=/run/postgresql',
    'postgresql://toolexec:secret@/toolexec?host=/var/run/postgresql&port=5433',
  ])('takes %s, the libpq socket forms included', (url) => {
    expect(loadConfig([], { TOOLEXEC_DATABASE_URL: url }, CWD).databaseUrl).toBe(url)
    expect(loadConfig(['--database-url', url], {}, CWD).databaseUrl).toBe(url)
  })

  it('refuses another scheme or no URL at all, with a ConfigError that never shows the password', () => {
    for (const url of ['mysql://root:hunter2@db/toolexec', 'hunter2@localhost/toolexec', 'sqlite:///data/toolexec.db']) {
      const refuse = (): unknown => loadConfig([], { TOOLEXEC_DATABASE_URL: url }, CWD)
      expect(refuse).toThrow(ConfigError)
      expect(refuse).toThrow(/TOOLEXEC_DATABASE_URL/)
      expect(refuse).not.toThrow(/hunter2/)
    }
  })

  it('is logged with its password replaced by ***', () => {
    expect(redactedDatabaseUrl('postgres://toolexec:hunter2@db.internal:5432/toolexec')).toBe('postgres://toolexec:***@db.internal:5432/toolexec')
    expect(redactedDatabaseUrl('postgresql://localhost/toolexec')).toBe('postgresql://localhost/toolexec')
  })

  it.each([
    ['postgresql:///toolexec?host=/run/pg&password=hunter2', 'postgresql:///toolexec?host=/run/pg&password=***'],
    ['postgres://u@/db?host=/dir&PASSWORD=hunter2&application_name=x', 'postgres://u@/db?host=/dir&PASSWORD=***&application_name=x'],
    ['postgres://u:hunter2@/db?host=/dir', 'postgres://u:***@/db?host=/dir'],
    ['postgres://db/x?sslmode=verify-full&sslpassword=hunter2&sslkey=/k/hunter2.key&passfile=/p/hunter2', 'postgres://db/x?sslmode=verify-full&sslpassword=***&sslkey=***&passfile=***'],
  ])('masks every secret of %s', (url, shown) => {
    expect(redactedDatabaseUrl(url)).toBe(shown)
    expect(redactedDatabaseUrl(url)).not.toMatch(/hunter2/)
  })

  it('masks the secrets of a text that does not parse as a URL too', () => {
    expect(redactedDatabaseUrl('postgres://u:hunter2@[bad/db?password=hunter2 x')).not.toMatch(/hunter2/)
  })
})

describe('TOOLEXEC_CORS_ORIGINS', () => {
  it.each(['http://localhost:5173', 'https://app.example.com', 'http://127.0.0.1:8080', 'http://[::1]:3000'])('takes the origin %s as given', (origin) => {
    expect(loadConfig([], { TOOLEXEC_CORS_ORIGINS: origin }, CWD).corsOrigins).toEqual([origin])
  })

  it.each([
    ['https://app.example.com/', 'did you mean "https://app.example.com"'],
    ['https://app.example.com/page', 'did you mean "https://app.example.com"'],
    ['http://localhost:80', 'did you mean "http://localhost"'],
    ['https://App.Example.com', 'did you mean "https://app.example.com"'],
    ['app.example.com', 'is not an origin'],
    ['*', 'is not an origin'],
    ['ftp://files.example.com', 'is not an origin'],
    ['file:///tmp/page.html', 'is not an origin'],
  ])('refuses %s in one line naming it', (origin, hint) => {
    const error = refusal([], { TOOLEXEC_CORS_ORIGINS: `http://ok.example,${origin}` })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toContain(`"${origin}" is not an origin`)
    expect(error.message).toContain(hint)
    expect(error.message).not.toContain('\n')
  })
})

describe('TOOLEXEC_JWT_*', () => {
  const TOKEN = { TOOLEXEC_TOKEN: 'a-token-long-enough-to-keep' }
  const ISSUER = { ...TOKEN, TOOLEXEC_JWT_ISSUER: 'https://idp.example.com/', TOOLEXEC_JWT_AUDIENCE: 'https://toolexec.example.com' }

  it('is off without an issuer', () => {
    expect(loadConfig([], TOKEN, CWD).identityProvider).toBeUndefined()
  })

  it('takes the issuer, the audience and a JWKS URL or a key file (resolved from the working directory)', () => {
    expect(loadConfig([], { ...ISSUER, TOOLEXEC_JWT_JWKS_URL: 'https://idp.example.com/jwks' }, CWD).identityProvider).toEqual({
      issuer: 'https://idp.example.com/',
      audience: 'https://toolexec.example.com',
      jwksUrl: 'https://idp.example.com/jwks',
      keyFile: undefined,
    })
    expect(loadConfig(['--jwt-key-file', 'keys/idp.pem'], ISSUER, CWD).identityProvider?.keyFile).toBe('/srv/app/keys/idp.pem')
    expect(loadConfig([], { ...ISSUER, TOOLEXEC_JWT_JWKS_URL: 'http://127.0.0.1:9000/jwks' }, CWD).identityProvider?.jwksUrl).toBe('http://127.0.0.1:9000/jwks')
  })

  it.each([
    ['an audience without an issuer', { ...TOKEN, TOOLEXEC_JWT_AUDIENCE: 'https://toolexec.example.com' }, 'TOOLEXEC_JWT_AUDIENCE is set but TOOLEXEC_JWT_ISSUER is not'],
    ['a key file without an issuer', { ...TOKEN, TOOLEXEC_JWT_KEY_FILE: 'idp.pem' }, 'TOOLEXEC_JWT_KEY_FILE is set but TOOLEXEC_JWT_ISSUER is not'],
    ['an issuer that is no URL', { ...ISSUER, TOOLEXEC_JWT_ISSUER: 'my-idp', TOOLEXEC_JWT_KEY_FILE: 'idp.pem' }, 'TOOLEXEC_JWT_ISSUER must be'],
    ['an issuer without TOOLEXEC_TOKEN', { TOOLEXEC_JWT_ISSUER: 'https://idp.example.com', TOOLEXEC_JWT_AUDIENCE: 'x', TOOLEXEC_JWT_KEY_FILE: 'idp.pem' }, 'needs TOOLEXEC_TOKEN'],
    ['no audience', { ...TOKEN, TOOLEXEC_JWT_ISSUER: 'https://idp.example.com', TOOLEXEC_JWT_KEY_FILE: 'idp.pem' }, 'needs TOOLEXEC_JWT_AUDIENCE'],
    ['neither keys', ISSUER, 'exactly one of TOOLEXEC_JWT_JWKS_URL'],
    ['both keys', { ...ISSUER, TOOLEXEC_JWT_KEY_FILE: 'idp.pem', TOOLEXEC_JWT_JWKS_URL: 'https://idp.example.com/jwks' }, 'exactly one of TOOLEXEC_JWT_JWKS_URL'],
    ['a JWKS URL over plain HTTP to another machine', { ...ISSUER, TOOLEXEC_JWT_JWKS_URL: 'http://idp.example.com/jwks' }, 'must be an https:// URL'],
  ])('refuses %s in one line', (_what, env, message) => {
    const error = refusal([], env)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toContain(message)
    expect(error.message).not.toContain('\n')
  })
})

describe('settings, --help and warnings', () => {
  it('expands a leading ~/ of a path to the home directory', () => {
    expect(loadConfig([], { TOOLEXEC_DATA_DIR: '~/data', TOOLEXEC_WORKSPACE: '~' }, CWD)).toMatchObject({
      dataDir: path.join(os.homedir(), 'data'),
      workspace: os.homedir(),
    })
  })

  it('asks for help or the version on -h, --help, -v and --version, and refuses what it does not know', () => {
    expect(requestedInfo(['--help'])).toBe('help')
    expect(requestedInfo(['--port', '1', '-h'])).toBe('help')
    expect(requestedInfo(['--version'])).toBe('version')
    expect(requestedInfo(['-v'])).toBe('version')
    expect(requestedInfo(['--port', '1'])).toBeUndefined()
    expect(() => requestedInfo(['--helps'])).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }))
  })

  it('lists every setting in --help with its variable and default', () => {
    const text = helpText('1.2.3')
    expect(text).toContain('toolexec 1.2.3')
    for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
      expect(text).toContain(`--${name} <value>\n      ${setting.env} (default: ${setting.shown ?? setting.fallback ?? 'none'})\n      ${setting.help}\n`)
    }
    expect(text).toContain('(default: 127.0.0.1)')
    expect(text).toContain('(default: ~/.toolexec)')
    expect(text).toContain('--help')
    expect(text).toContain('--version')
  })

  it('warns about a token shorter than MIN_TOKEN_LENGTH without naming it, and not about a long one', () => {
    const short = 'x'.repeat(MIN_TOKEN_LENGTH - 1)
    const [warning, ...more] = configWarnings(loadConfig([], { TOOLEXEC_TOKEN: short }, CWD))
    expect(more).toEqual([])
    expect(warning).toContain(`TOOLEXEC_TOKEN is ${MIN_TOKEN_LENGTH - 1} characters long`)
    expect(warning).not.toContain(short)
    expect(configWarnings(loadConfig([], { TOOLEXEC_TOKEN: 'x'.repeat(MIN_TOKEN_LENGTH) }, CWD))).toEqual([])
    expect(configWarnings(loadConfig([], {}, CWD))).toEqual([])
  })
})
