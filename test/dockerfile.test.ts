/**
 * No Docker engine runs here, so the image is checked by what can be run without one: its
 * instructions, the files it copies, its HEALTHCHECK command and its CMD with its ENV (on the
 * checkout's dist/, built as its build stage builds it; test/packaging.test.ts runs the same
 * compiled server with production dependencies only).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildDist } from './support/dist-lock.js'
import { startTestServer } from './support/server.js'
import { tempDir } from './support/temp-dirs.js'

const ROOT = path.resolve(import.meta.dirname, '..')

interface Instruction {
  readonly stage: number
  readonly keyword: string
  readonly args: string
}

function instructions(): Instruction[] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
  let stage = -1
  return lines.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/)
    if (keyword.toUpperCase() === 'FROM') stage += 1
    return { stage, keyword: keyword.toUpperCase(), args: rest.join(' ') }
  })
}

const all = instructions()
const lastStage = Math.max(...all.map((instruction) => instruction.stage))
const runtime = all.filter((instruction) => instruction.stage === lastStage)
const argsOf = (keyword: string, of = runtime): string[] => of.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args)

function runtimeEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const args of argsOf('ENV')) for (const [, key = '', value = ''] of args.matchAll(/([A-Z_]+)=(\S+)/g)) env[key] = value
  return env
}

function execForm(keyword: string): string[] {
  const [args = ''] = argsOf(keyword).map((line) => line.replace(/^(--\S+\s+)*CMD\s+/, ''))
  return JSON.parse(args) as string[]
}

function run(argv: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stderr: string }> {
  const [command = '', ...args] = argv
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}

describe('Dockerfile', () => {
  it('builds on node:24-bookworm-slim in two stages, compiling better-sqlite3 with npm ci and the TypeScript with npm run build in the first', () => {
    expect(argsOf('FROM', all)).toEqual(['node:24-bookworm-slim AS build', 'node:24-bookworm-slim AS runtime'])
    const build = all.filter((instruction) => instruction.stage === 0)
    const buildRuns = argsOf('RUN', build).join(' ; ')
    expect(buildRuns).toMatch(/apt-get install .*python3 make g\+\+/)
    expect(buildRuns).toMatch(/npm ci .*npm run build .*npm prune --omit=dev/)
  })

  it('carries what the tools run besides node and bash: bubblewrap, git (with CA certificates for its https remotes) and tini', () => {
    const install = argsOf('RUN').find((args) => args.includes('apt-get install')) ?? ''
    const packages = install
      .replace(/.*apt-get install -y --no-install-recommends /, '')
      .split(/\s+&&/)[0]
      ?.split(/\s+/)
    expect(packages).toEqual(['bubblewrap', 'git', 'ca-certificates', 'tini'])
  })

  it('runs node under tini as PID 1, which passes on SIGTERM and reaps the orphans of confined commands', () => {
    expect(execForm('ENTRYPOINT')).toEqual(['/usr/bin/tini', '--'])
  })

  it('runs the compiled server with node, without devDependencies, TypeScript or npm', () => {
    expect(argsOf('COPY')).toEqual(['--from=build /app/node_modules ./node_modules', '--from=build /app/dist ./dist', 'package.json ./', 'migrations ./migrations', 'web/dist ./web/dist'])
    expect(execForm('CMD')).toEqual(['node', 'dist/main.js'])
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }
    expect(manifest.bin.toolexec, 'the bin and the image run the same entry').toBe('dist/main.js')
  })

  it('runs as a non-root user with its data dir on a volume, on 0.0.0.0:8787', () => {
    expect(argsOf('USER')).toEqual(['node'])
    // Whatever uid `docker run --user` gives the server: the volume starts as a copy of /data.
    expect(argsOf('RUN').join(' ; ')).toContain('chmod 1777 /data /workspace')
    expect(runtimeEnv()).toMatchObject({ HOST: '0.0.0.0', PORT: '8787', TOOLEXEC_DATA_DIR: '/data' })
    expect(argsOf('VOLUME')).toEqual(['["/data"]'])
    expect(argsOf('EXPOSE')).toEqual(['8787'])
  })

  it('copies only paths that exist and that .dockerignore lets through', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
    const sources = argsOf('COPY', all)
      .filter((args) => !args.startsWith('--from='))
      .flatMap((args) => args.split(/\s+/).slice(0, -1))
    expect(sources.length).toBeGreaterThan(3)
    for (const source of sources) {
      expect(existsSync(path.join(ROOT, source)), source).toBe(true)
      expect(ignored, source).not.toContain(source)
    }
  })

  it('its HEALTHCHECK command passes against a live server and fails when nothing listens', async () => {
    const healthcheck = execForm('HEALTHCHECK')
    const server = await startTestServer({ env: { TOOLEXEC_TOKEN: 'docker-health' } })
    const port = new URL(server.url).port
    try {
      expect((await run(healthcheck, { PORT: port })).code).toBe(0)
    } finally {
      await server.close()
    }
    expect((await run(healthcheck, { PORT: port })).code).toBe(1)
  })

  it('its CMD with its ENV refuses to start without TOOLEXEC_TOKEN', async () => {
    await buildDist()
    const dataDir = await tempDir('docker')
    const result = await run(execForm('CMD'), { ...runtimeEnv(), TOOLEXEC_DATA_DIR: dataDir, TOOLEXEC_WORKSPACE: dataDir })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Refusing to listen on 0.0.0.0 without a token')
  }, 240_000)
})

describe('the documented docker commands, run with a stand-in docker', () => {
  /** The first sh block of the container section (docs/install.md). */
  const readmeBlock = (): string => {
    const readme = readFileSync(path.join(ROOT, 'docs', 'install.md'), 'utf8')
    return /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Running in a container')))?.[1] ?? ''
  }

  it('make the token once, outside the workspace, readable only by its user; give it to the container and show it; run the server as the workspace owner', async () => {
    const home = await tempDir('docker-home')
    const workspace = await tempDir('docker-ws')
    const bin = await tempDir('docker-bin')
    const calls = path.join(home, 'docker-calls')
    // Each call's arguments one a line, an empty line after each call.
    writeFileSync(path.join(bin, 'docker'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${calls}'\necho >> '${calls}'\n`, { mode: 0o755 })
    const runBlock = (): { status: number | null; stdout: string; stderr: string } =>
      spawnSync('bash', ['-euo', 'pipefail', '-c', readmeBlock()], { cwd: workspace, env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: home }, encoding: 'utf8' })
    const first = runBlock()
    expect(first.status, first.stderr).toBe(0)
    const tokenFile = path.join(home, '.toolexec-token')
    const token = readFileSync(tokenFile, 'utf8').trim()
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600)
    expect(first.stdout).toBe(`Open http://127.0.0.1:8787/ and give it the token ${token}\n`)
    expect(runBlock().stdout, 'run again, the block keeps the token it made').toBe(first.stdout)
    const runs = readFileSync(calls, 'utf8')
      .split('\n\n')
      .map((call) => call.split('\n'))
      .filter((args) => args[0] === 'run')
    expect(runs).toHaveLength(2)
    for (const args of runs) {
      const after = (flag: string): string[] => args.flatMap((arg, at) => (arg === flag ? [args[at + 1] ?? ''] : []))
      expect(after('-e')).toEqual([`TOOLEXEC_TOKEN=${token}`])
      expect(after('--user')).toEqual([`${process.getuid?.() ?? ''}:${process.getgid?.() ?? ''}`])
      expect(after('-v')).toEqual(['toolexec-data:/data', `${workspace}:/workspace`])
      expect(args.at(-1)).toBe('toolexec')
    }
  })
})
