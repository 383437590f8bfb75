/**
 * The suite's TMPDIR guard (test/support/tmpdir-guard.ts) and temp-dir registry, run as vitest
 * runs them, on fixtures: a file that removes what it makes passes and leaves its TMPDIR empty;
 * a file that leaks a dir fails the run, which names it and what it holds, and the TMPDIR is emptied still.
 */
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from './support/temp-dirs.js'

const ROOT = path.resolve(import.meta.dirname, '..')
const CONFIG = path.join(ROOT, 'test/support/tmpdir-fixtures/vitest.config.ts')

function runFixture(fixture: string, tmpdir: string, guard = 'strict'): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/vitest'), ['run', '--config', CONFIG, fixture], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmpdir, NO_COLOR: '1', FORCE_COLOR: '0', TOOLEXEC_TMPDIR_GUARD: guard },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

describe('the TMPDIR guard', () => {
  it('passes a file whose temp dirs (module level, beforeAll, a test, a read-only one) are all removed, and leaves TMPDIR empty', async () => {
    const tmpdir = await tempDir('guard-clean')
    const run = await runFixture('cleans-up.fixture.ts', tmpdir)
    expect(run.output).toMatch(/Tests\s+2 passed/)
    expect(run.code).toBe(0)
    expect(readdirSync(tmpdir)).toEqual([])
  }, 60_000)

  it('fails a run that leaves a dir, naming it, and empties TMPDIR all the same', async () => {
    const tmpdir = await tempDir('guard-leak')
    const run = await runFixture('leaks.fixture.ts', tmpdir)
    expect(run.output).toMatch(/the tests left 1 entries in their TMPDIR; .*: left-behind-\w{6}/)
    expect(run.output).toMatch(/\n {2}left-behind-\w{6}\/state\.db \(3 B, \d+\.\d s old\)/)
    expect(run.code).toBe(1)
    expect(readdirSync(tmpdir)).toEqual([])
  }, 60_000)

  it('by default names a leftover as a warning, passes the run and empties TMPDIR all the same', async () => {
    const tmpdir = await tempDir('guard-warn')
    const run = await runFixture('leaks.fixture.ts', tmpdir, '')
    expect(run.output).toMatch(/warning: the tests left 1 entries in their TMPDIR; .*: left-behind-\w{6}/)
    expect(run.code).toBe(0)
    expect(readdirSync(tmpdir)).toEqual([])
  }, 60_000)
})
