/**
 * No Docker engine runs here, so the image is checked by what can be run without one: its
 * instructions, the files it copies, its HEALTHCHECK command and its CMD with its ENV (on the
 * checkout's dist/, built as its build stage builds it; test/packaging.test.ts runs the same
 * compiled server with production dependencies only).
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
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
    expect(argsOf('RUN').join(' ')).toMatch(/apt-get install .*bubblewrap/)
  })

  it('runs the compiled server with node, without devDependencies, TypeScript or npm', () => {
    expect(argsOf('COPY')).toEqual(['--from=build /app/node_modules ./node_modules', '--from=build /app/dist ./dist', 'package.json ./', 'migrations ./migrations', 'web/dist ./web/dist'])
    expect(execForm('CMD')).toEqual(['node', 'dist/main.js'])
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }
    expect(manifest.bin.toolexec, 'the bin and the image run the same entry').toBe('dist/main.js')
  })

  it('runs as a non-root user with its data dir on a volume, on 0.0.0.0:8787', () => {
    expect(argsOf('USER')).toEqual(['node'])
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
