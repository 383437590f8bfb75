/**
 * The package as a user installs it (`npm pack`, then the `npm install -g` of docs/install.md of the
 * tarball, into a prefix of its own) and `npm start` as a process manager stops it: a signal to
 * the PID it shows.
 *
 * The tarball bundles every dependency but better-sqlite3 from the checkout's node_modules,
 * which `npm ci` installed from package-lock.json: an installed package runs the tree the suite
 * tested (a root `overrides` or lockfile does not apply to a package installed as a dependency,
 * and npm ignores an npm-shrinkwrap.json inside a local tarball). better-sqlite3 (an exact
 * version) and the few packages its install script uses come from the registry, or npm's cache:
 * the install here is `--prefer-offline`, so it reads the tarballs `npm ci` cached and asks the
 * registry only for metadata it has never fetched. `--ignore-scripts` skips the native build
 * (~90 s, and a download from GitHub); the checkout's better_sqlite3.node is copied in instead:
 * the same Node runs both, so the ABI is the same.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT, runCommand, withDistLock } from './support/dist-lock.js'
import { tempDirSync } from './support/temp-dirs.js'

interface Manifest {
  readonly name: string
  readonly version: string
  readonly bin: Record<string, string>
  readonly dependencies: Record<string, string>
  readonly devDependencies: Record<string, string>
  readonly bundleDependencies?: readonly string[]
}

interface LockEntry {
  readonly version: string
  readonly dev?: boolean
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest
// The node running the suite runs npm and the installed bin too (its better_sqlite3.node is built for it).
const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`
/** The one dependency compiled for the Node that installs it, so not bundled. */
const NATIVE = 'better-sqlite3'

interface Installed {
  /** The global prefix: bin/toolexec, lib/node_modules/toolexec. */
  readonly prefix: string
  /** What `npm install` printed, stdout and stderr. */
  readonly npmOutput: string
}

let installed: Installed

function checkoutLock(): { packages: Record<string, LockEntry | undefined> } {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
}

const packageDir = (prefix: string): string => path.join(prefix, 'lib', 'node_modules', manifest.name)

async function packAndInstall(): Promise<Installed> {
  const work = tempDirSync('pack')
  // prepack rebuilds dist/ from nothing, so the tarball holds exactly what src/ compiles to.
  const packed = await withDistLock(() => runCommand('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO_ROOT }))
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string }]
  const prefix = path.join(work, 'prefix')
  const args = ['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', path.join(work, filename)]
  const install = await runCommand('npm', args, { cwd: work, env: { ...process.env, PATH }, timeoutMs: 240_000 })
  const addon = path.join('build', 'Release', 'better_sqlite3.node')
  const checkoutDriver = path.dirname(createRequire(import.meta.url).resolve(`${NATIVE}/package.json`))
  const installedDriver = path.join(packageDir(prefix), 'node_modules', NATIVE)
  mkdirSync(path.join(installedDriver, path.dirname(addon)), { recursive: true })
  copyFileSync(path.join(checkoutDriver, addon), path.join(installedDriver, addon))
  return { prefix, npmOutput: install.stdout + install.stderr }
}

interface InstalledPackage {
  readonly dir: string
  readonly name: string
  readonly version: string
  readonly scripts?: Record<string, string>
}

/** Every package under `nodeModules`, nested ones too. */
function installedPackages(nodeModules: string): InstalledPackage[] {
  if (!existsSync(nodeModules)) return []
  const dirs = readdirSync(nodeModules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) => (entry.startsWith('@') ? readdirSync(path.join(nodeModules, entry)).map((scoped) => path.join(nodeModules, entry, scoped)) : [path.join(nodeModules, entry)]))
  return dirs.flatMap((dir) => {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Omit<InstalledPackage, 'dir'>
    return [{ ...manifest, dir }, ...installedPackages(path.join(dir, 'node_modules'))]
  })
}

/** Whether npm runs something of the package's at install: a script, or node-gyp for a binding.gyp. */
function hasInstallScript(found: InstalledPackage): boolean {
  return ['preinstall', 'install', 'postinstall'].some((name) => found.scripts?.[name] !== undefined) || existsSync(path.join(found.dir, 'binding.gyp'))
}

/** The lock's production packages as name@version (a name may come in several versions). */
function lockedProductionPackages(): string[] {
  return Object.entries(checkoutLock().packages)
    .filter(([key, entry]) => key !== '' && entry !== undefined && entry.dev !== true)
    .map(([key, entry]) => `${key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${entry?.version ?? ''}`)
}

interface Started {
  readonly child: ChildProcess
  readonly url: string
  readonly exited: Promise<number | null>
}

/** Spawns a command that starts the server and waits for the URL of its start line. */
async function startServerProcess(command: string, args: readonly string[], cwd: string, env: Record<string, string>, options: { detached?: boolean } = {}): Promise<Started> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, PATH, NODE_OPTIONS: '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let output = ''
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output)
      if (match?.[1] !== undefined) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before listening: ${output}`)))
  })
  return { child, url, exited }
}

async function listening(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })
    return true
  } catch {
    return false
  }
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The PIDs whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
}

/** `pid`'s children, theirs and so on. */
function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)])
}

/** What a failed test would leave listening (a shell's child that outlived it, say). */
function killLeftovers(pids: readonly number[]): void {
  for (const pid of pids) if (isRunning(pid)) process.kill(pid, 'SIGKILL')
}

describe('the package: npm pack, installed from the tarball with npm install -g', () => {
  beforeAll(async () => {
    installed = await packAndInstall()
  }, 300_000)

  afterAll(() => {
    rmSync(path.dirname(installed.prefix), { recursive: true, force: true })
  })

  it('bundles every dependency but better-sqlite3, which the install compiles for its Node', () => {
    expect(manifest.bundleDependencies).toEqual(Object.keys(manifest.dependencies).filter((name) => name !== NATIVE))
  })

  it('installs without a warning: no EBADENGINE on the Node this suite runs on, nothing deprecated', () => {
    expect(installed.npmOutput).not.toContain('EBADENGINE')
    expect(installed.npmOutput.split('\n').filter((line) => /^npm warn/i.test(line))).toEqual([])
  })

  it('installs exactly the production packages of package-lock.json, each in its locked version', () => {
    const tree = installedPackages(path.join(packageDir(installed.prefix), 'node_modules')).map((found) => `${found.name}@${found.version}`)
    expect(new Set(tree)).toEqual(new Set(lockedProductionPackages()))
  })

  it("better-sqlite3's is the one install script among them: the one an operator must allow (npm 11's allow-scripts)", () => {
    const withScripts = installedPackages(path.join(packageDir(installed.prefix), 'node_modules')).filter(hasInstallScript)
    expect(withScripts.map((found) => found.name)).toEqual([NATIVE])
  })

  it('holds the compiled server, its migrations, the built web console and its bin, and installs no devDependency', () => {
    const root = packageDir(installed.prefix)
    expect(existsSync(path.join(root, 'dist', 'main.js'))).toBe(true)
    expect(existsSync(path.join(root, 'migrations', 'sqlite', '001_init.sql'))).toBe(true)
    // The web console ships built: no build step after install.
    expect(existsSync(path.join(root, 'web', 'dist', 'index.html'))).toBe(true)
    expect(existsSync(path.join(root, 'web', 'src'))).toBe(false)
    expect(existsSync(path.join(root, 'src'))).toBe(false)
    expect(existsSync(path.join(installed.prefix, 'bin', 'toolexec'))).toBe(true)
    expect(readFileSync(path.join(root, 'dist', 'main.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/)
    // Some devDependencies (ajv) are also what a dependency needs; those that only development needs are absent.
    const devOnly = Object.keys(manifest.devDependencies).filter((name) => checkoutLock().packages[`node_modules/${name}`]?.dev === true)
    expect(devOnly).toEqual(expect.arrayContaining(['tsx', 'typescript', 'vitest']))
    for (const dev of devOnly) expect(existsSync(path.join(root, 'node_modules', dev)), dev).toBe(false)
  })

  it('toolexec --version prints the version', async () => {
    const run = await runCommand(path.join(installed.prefix, 'bin', 'toolexec'), ['--version'], { cwd: installed.prefix, env: { ...process.env, PATH } })
    expect(run.stdout).toBe(`${manifest.version}\n`)
  })

  it('toolexec starts a real server from it: /healthz answers, the console page and its script load, a Grep call runs in its worker, SIGTERM stops it', async () => {
    const dataDir = tempDirSync('pack-data')
    const workspace = tempDirSync('pack-ws')
    writeFileSync(path.join(workspace, 'notes.txt'), 'a needle in a haystack\n')
    const server = await startServerProcess(path.join(installed.prefix, 'bin', 'toolexec'), [], installed.prefix, {
      TOOLEXEC_DATA_DIR: dataDir,
      TOOLEXEC_WORKSPACE: workspace,
      TOOLEXEC_SHUTDOWN_GRACE_MS: '3000',
    })
    try {
      expect(await (await fetch(`${server.url}/healthz`)).json()).toMatchObject({ status: 'ok' })
      const consolePage = await fetch(`${server.url}/`)
      expect(consolePage.status).toBe(200)
      const script = /src="(\/console\/[^"]+\.js)"/.exec(await consolePage.text())?.[1]
      expect((await fetch(`${server.url}${script ?? '/console/missing.js'}`)).status).toBe(200)
      const json = { 'content-type': 'application/json' }
      await fetch(`${server.url}/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ id: 's1' }) })
      const calls = [{ id: 'g1', name: 'Grep', input: { pattern: 'needle', output_mode: 'content' } }]
      const accepted = (await (await fetch(`${server.url}/schedules`, { method: 'POST', headers: json, body: JSON.stringify({ sessionId: 's1', createSession: {}, calls }) })).json()) as {
        scheduleId: string
      }
      const done = (await (await fetch(`${server.url}/schedules/${accepted.scheduleId}?wait=20`)).json()) as { calls: { status: string; modelContent: unknown }[] }
      expect(done.calls[0]?.status).toBe('succeeded')
      expect(JSON.stringify(done.calls[0]?.modelContent)).toContain('a needle in a haystack')
      expect(existsSync(path.join(dataDir, 'toolexec.db'))).toBe(true)
    } finally {
      server.child.kill('SIGTERM')
    }
    expect(await server.exited).toBe(0)
    expect(await listening(server.url)).toBe(false)
  }, 60_000)
})

describe('npm start', () => {
  const GRACE_MS = 5_000

  it('SIGTERM to the npm PID reaches the server: the port closes within the grace and no server process is left', async () => {
    const dataDir = tempDirSync('npm-start')
    const npm = await startServerProcess('npm', ['start', '--', '--data-dir', dataDir, '--workspace', dataDir, '--shutdown-grace-ms', String(GRACE_MS)], REPO_ROOT, {})
    const started = descendantsOf(npm.child.pid ?? 0)
    try {
      // npm's one child is the server itself (the script's shell exec'd it), not a shell or a wrapper.
      const [server, ...others] = childrenOf(npm.child.pid ?? 0)
      expect(others).toEqual([])
      expect(readFileSync(`/proc/${server}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['scripts/start.mjs']))
      expect((await fetch(`${npm.url}/healthz`)).status).toBe(200)
      npm.child.kill('SIGTERM')
      await expect.poll(() => listening(npm.url), { timeout: GRACE_MS, interval: 100 }).toBe(false)
      expect(await npm.exited).toBe(0)
      expect(started.filter(isRunning)).toEqual([])
    } finally {
      killLeftovers(started)
    }
  }, 60_000)

  it("SIGTERM to npm start's process group (systemd's default) is one request to stop, not a second signal that crashes it", async () => {
    const dataDir = tempDirSync('npm-group')
    const npm = await startServerProcess('npm', ['start', '--', '--data-dir', dataDir, '--workspace', dataDir, '--shutdown-grace-ms', String(GRACE_MS)], REPO_ROOT, {}, { detached: true })
    const started = descendantsOf(npm.child.pid ?? 0)
    try {
      // The server gets it from the signal and again from npm: a crash would exit 143.
      process.kill(-(npm.child.pid ?? 0), 'SIGTERM')
      expect(await npm.exited).toBe(0)
      expect(await listening(npm.url)).toBe(false)
    } finally {
      killLeftovers(started)
    }
  }, 60_000)
})
