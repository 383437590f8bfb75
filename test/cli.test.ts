/**
 * The `toolexec` command as an operator meets it, run as a real process: --help and --version,
 * the one line it logs when it listens, and the one line (exit 2) of a configuration it refuses.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MIN_TOKEN_LENGTH, SETTINGS, type Setting } from '../src/config.js'
import { runRefusedMain, startMain } from './support/main-process.js'
import { tempDirSync } from './support/temp-dirs.js'

const ROOT = path.resolve(import.meta.dirname, '..')
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

describe('--help and --version', () => {
  it.each([['--help'], ['-h']])('%s prints every flag with its variable and default, exits 0 and starts nothing', async (flag) => {
    const dataDir = path.join(tempDirSync('cli'), 'never-created')
    const run = await runRefusedMain(dataDir, {}, 15_000, { args: [flag] })
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
      expect(run.stdout).toContain(`--${name} <value>\n      ${setting.env} (default: ${setting.shown ?? setting.fallback ?? 'none'})`)
    }
    expect(run.stdout).toContain(`toolexec ${VERSION}`)
    expect(existsSync(dataDir)).toBe(false)
  })

  it.each([['--version'], ['-v']])('%s prints the package version and exits 0', async (flag) => {
    const dataDir = path.join(tempDirSync('cli'), 'never-created')
    const run = await runRefusedMain(dataDir, {}, 15_000, { args: [flag] })
    expect(run).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' })
    expect(existsSync(dataDir)).toBe(false)
  })
})

describe('--help answers before the server loads', () => {
  it('src/main.ts imports only the configuration statically; the server is imported once a configuration is read', () => {
    const source = readFileSync(path.join(ROOT, 'src', 'main.ts'), 'utf8')
    const staticImports = [...source.matchAll(/^import .* from '([^']+)'$/gm)].map((match) => match[1])
    expect(staticImports).toEqual(['node:fs', 'node:os', './config.js', './start-phases.js'])
    expect(source).toContain("import('./server.js')")
  })

  it('names the web console among the routes that need no token', async () => {
    const run = await runRefusedMain(path.join(tempDirSync('cli'), 'never-created'), {}, 15_000, { args: ['--help'] })
    expect(run.stdout).toContain("every route requires but /healthz, /openapi.json, /docs and the web console's page and assets (/, /console/)")
  })
})

describe('the configuration table of docs/configuration.md', () => {
  it('has a row for every setting, in order, with its variable, flag and default as --help prints them', () => {
    const readme = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8')
    const table = readme.slice(readme.indexOf('| variable | flag | default | meaning |')).split('\n\n')[0] ?? ''
    const rows = table
      .split('\n')
      .slice(2)
      .map((row) =>
        row
          .split(' | ')
          .slice(0, 3)
          .map((cell) =>
            cell
              .replace(/^\| /, '')
              .replaceAll('`', '')
              .replace(/ \(.*\)$/, ''),
          ),
      )
    const settings = (Object.entries(SETTINGS) as [string, Setting][]).map(([name, setting]) => [setting.env, `--${name}`, setting.shown ?? setting.fallback ?? 'none'])
    expect(rows).toEqual(settings)
  })
})

describe('the start line', () => {
  it('names the URL, whether a token is required (never the token), the CORS origins, the workspace and the data directory', async () => {
    const dataDir = tempDirSync('cli')
    const workspace = tempDirSync('cli')
    const token = 'a-token-long-enough-to-keep'
    const { line, output } = await startLine(dataDir, { TOOLEXEC_TOKEN: token, TOOLEXEC_WORKSPACE: workspace, TOOLEXEC_CORS_ORIGINS: 'http://localhost:5173,https://app.example' })
    expect(line).toMatchObject({ msg: 'toolexec listening', tokenRequired: true, corsOrigins: ['http://localhost:5173', 'https://app.example'], workspace, dataDir })
    expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(line.console).toBe(`${String(line.url)}/`)
    expect(output).not.toContain(token)
    expect(output).not.toContain('warning')
  }, 30_000)

  it('says no token is required and no CORS origin is allowed when none is set', async () => {
    const dataDir = tempDirSync('cli')
    const { line } = await startLine(dataDir, {})
    expect(line).toMatchObject({ tokenRequired: false, corsOrigins: [], workspace: dataDir, dataDir })
  }, 30_000)

  it(`warns in one line, without the token, about a token shorter than ${MIN_TOKEN_LENGTH} characters, and starts`, async () => {
    const { line, stderr } = await startLine(tempDirSync('cli'), { TOOLEXEC_TOKEN: 'short-token' })
    expect(line).toMatchObject({ tokenRequired: true })
    expect(stderr).toBe(`toolexec: warning: TOOLEXEC_TOKEN is 11 characters long; use ${MIN_TOKEN_LENGTH} or more (e.g. openssl rand -hex 32) so it cannot be guessed\n`)
  }, 30_000)
})

describe('--log-format', () => {
  /** Starts the server, stops it on SIGTERM once it answered; what it printed on stdout, colours removed. */
  const loggedBy = async (env: Record<string, string>): Promise<{ url: string; stdout: string }> => {
    const server = await startMain(tempDirSync('cli'), 0, env)
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    } finally {
      server.child.kill('SIGTERM')
    }
    expect(await server.exited).toBe(0)
    return { url: server.url, stdout: stripVTControlCharacters(server.output().stdout) }
  }

  it('pretty: readable lines, the start line naming the URL and the console, the stop line written before the exit', async () => {
    const { url, stdout } = await loggedBy({ TOOLEXEC_LOG_FORMAT: 'pretty' })
    expect(stdout).toMatch(new RegExp(`^\\[[\\d:.]+\\] INFO: toolexec listening on ${url} — open the console at ${url}/$`, 'm'))
    expect(stdout).toMatch(/^\[[\d:.]+\] INFO: toolexec stopped$/m)
    expect(stdout).not.toContain('{"level"')
  }, 30_000)

  it('json (and auto, as standard output is a pipe here): one JSON object a line', async () => {
    for (const format of ['json', 'auto']) {
      const { url, stdout } = await loggedBy({ TOOLEXEC_LOG_FORMAT: format })
      const lines = stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(lines.find((line) => line.msg === 'toolexec listening')).toMatchObject({ url, console: `${url}/` })
      expect(lines.at(-1)).toMatchObject({ msg: 'toolexec stopped' })
    }
  }, 60_000)
})

describe('the start phases', () => {
  it('at LOG_LEVEL=debug, one line gives each phase of the start with its duration, in the order they ran', async () => {
    const server = await startMain(tempDirSync('cli'), 0, { LOG_LEVEL: 'debug', TOOLEXEC_LOG_FORMAT: 'json' })
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    } finally {
      server.child.kill('SIGTERM')
    }
    expect(await server.exited).toBe(0)
    const lines = server
      .output()
      .stdout.trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const phases = lines.find((line) => line.msg === 'start phases') as { level: number; phases: Record<string, number>; totalMs: number } | undefined
    expect(phases?.level).toBe(20)
    expect(Object.keys(phases?.phases ?? {})).toEqual(['boot', 'config', 'modules', 'sandbox', 'mcp', 'storage', 'http', 'recovery', 'listen', 'cluster'])
    for (const ms of Object.values(phases?.phases ?? {})) expect(ms).toBeGreaterThanOrEqual(0)
    expect(phases?.totalMs).toBeCloseTo(
      Object.values(phases?.phases ?? {}).reduce((sum, ms) => sum + ms, 0),
      0,
    )
  }, 30_000)

  it('logs no phases at the default level', async () => {
    const { output } = await startLine(tempDirSync('cli'), {})
    expect(output).not.toContain('start phases')
  }, 30_000)
})

/** Starts the server, answers /healthz, stops it on SIGTERM; its "toolexec listening" line and all it printed. */
async function startLine(dataDir: string, env: Record<string, string>): Promise<{ line: Record<string, unknown>; output: string; stderr: string }> {
  const server = await startMain(dataDir, 0, env)
  try {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  } finally {
    server.child.kill('SIGTERM')
  }
  expect(await server.exited).toBe(0)
  const { stdout, stderr } = server.output()
  const line = stdout.split('\n').find((text) => text.includes('"msg":"toolexec listening"'))
  if (line === undefined) throw new Error(`no start line in: ${stdout}`)
  return { line: JSON.parse(line) as Record<string, unknown>, output: stdout + stderr, stderr }
}

describe('a configuration it cannot start with: one line naming it, exit 2', () => {
  const refusedWith = async (env: Record<string, string>, options = {}): Promise<string> => {
    const run = await runRefusedMain(tempDirSync('cli'), env, 15_000, options)
    expect(run.code, run.stdout + run.stderr).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/^toolexec: [^\n]+\n$/)
    return run.stderr
  }

  it('a data directory under a file', async () => {
    const file = path.join(tempDirSync('cli'), 'a-file')
    writeFileSync(file, 'not a directory')
    const dataDir = path.join(file, 'data')
    expect(await refusedWith({ TOOLEXEC_DATA_DIR: dataDir })).toBe(
      `toolexec: Data directory ${dataDir} cannot be used: ${file} is a file, not a directory; fix it or give another --data-dir (TOOLEXEC_DATA_DIR)\n`,
    )
  })

  it('a data directory that is a file', async () => {
    const file = path.join(tempDirSync('cli'), 'a-file')
    writeFileSync(file, 'not a directory')
    expect(await refusedWith({ TOOLEXEC_DATA_DIR: file })).toContain(`Data directory ${file} cannot be used: it is a file, not a directory;`)
  })

  it('a read-only data directory', async () => {
    const dataDir = tempDirSync('cli')
    chmodSync(dataDir, 0o555)
    // root writes through a directory's mode: the server runs as nobody then, as an operator's user would.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    expect(await refusedWith({ TOOLEXEC_DATA_DIR: dataDir, TOOLEXEC_WORKSPACE: os.tmpdir(), HOME: os.tmpdir() }, asUser)).toBe(
      `toolexec: Data directory ${dataDir} cannot be used: it is not writable (EACCES); fix it or give another --data-dir (TOOLEXEC_DATA_DIR)\n`,
    )
  })

  it('a workspace that does not exist, or is a file', async () => {
    const missing = path.join(tempDirSync('cli'), 'no-such-workspace')
    expect(await refusedWith({ TOOLEXEC_WORKSPACE: missing })).toBe(`toolexec: Workspace ${missing} does not exist; give an existing directory as --workspace (TOOLEXEC_WORKSPACE)\n`)
    const file = path.join(tempDirSync('cli'), 'a-file')
    writeFileSync(file, '')
    expect(await refusedWith({ TOOLEXEC_WORKSPACE: file })).toContain(`Workspace ${file} is not a directory;`)
  })

  it('a CORS origin that is not an origin', async () => {
    expect(await refusedWith({ TOOLEXEC_CORS_ORIGINS: 'http://localhost:5173,https://app.example/' })).toBe(
      'toolexec: TOOLEXEC_CORS_ORIGINS: "https://app.example/" is not an origin: write http(s)://host[:port] with no path, as a browser sends it (did you mean "https://app.example"?)\n',
    )
  })

  it('identity-provider settings that do not fit together, or a key file with no public key', async () => {
    const jwt = { TOOLEXEC_TOKEN: 'a-token-long-enough-to-keep', TOOLEXEC_JWT_ISSUER: 'https://idp.example.com' }
    expect(await refusedWith({ ...jwt, TOOLEXEC_JWT_KEY_FILE: 'idp.pem' })).toContain('TOOLEXEC_JWT_ISSUER needs TOOLEXEC_JWT_AUDIENCE')
    const keyFile = path.join(tempDirSync('cli'), 'idp.pem')
    writeFileSync(keyFile, 'not a key')
    expect(await refusedWith({ ...jwt, TOOLEXEC_JWT_AUDIENCE: 'https://toolexec.example.com', TOOLEXEC_JWT_KEY_FILE: keyFile })).toBe(
      `toolexec: TOOLEXEC_JWT_KEY_FILE ${keyFile} cannot be used: it holds no PEM public key; give the identity provider's public key as PEM, or its JWK or JWK Set as JSON\n`,
    )
  })

  it('an unknown flag', async () => {
    // Node's own wording of the unknown option may change between versions; the line's frame may not.
    expect(await refusedWith({}, { args: ['--prot', '80'] })).toMatch(/^toolexec: Unknown option '--prot'[^\n]*; see --help\n$/)
  })
})
