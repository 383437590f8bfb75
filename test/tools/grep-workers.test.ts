import { execFileSync } from 'node:child_process'
import fc from 'fast-check'
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { closeGrepPool, GrepPool, grepPool } from '../../src/tools/grep/grep-pool.js'
import type { SearchSpec } from '../../src/tools/grep/worker-protocol.js'
import { grepHarness } from '../support/grep-harness.js'
import { workspaceWith } from '../support/permission-tools.js'
import { textOf } from '../support/model-text.js'

const SLOW = '(a+)+$'
const SLOW_LINE = `${'a'.repeat(40)}b\n`

function harness(files: Readonly<Record<string, string>>) {
  return grepHarness('grep-workers', files)
}

/** The longest time between two ticks of a 5 ms interval while `work` runs. */
async function longestTickGap<T>(work: () => Promise<T>): Promise<{ result: T; gap: number }> {
  let last = performance.now()
  let gap = 0
  const ticker = setInterval(() => {
    const now = performance.now()
    gap = Math.max(gap, now - last)
    last = now
  }, 5)
  try {
    return { result: await work(), gap }
  } finally {
    clearInterval(ticker)
  }
}

afterAll(async () => {
  await closeGrepPool()
})

describe('Grep in worker threads', () => {
  it('R26 stops a catastrophic pattern in its worker while the event loop and another Grep go on', async () => {
    const { grep } = await harness({ 'slow.txt': SLOW_LINE, 'ok.txt': 'fine\n' })
    await grep({ pattern: 'warm' })
    const { result, gap } = await longestTickGap(async () => {
      const slow = grep({ pattern: SLOW, path: 'slow.txt' })
      let slowSettledFirst = false
      void slow.finally(() => (slowSettledFirst = true))
      // Started after the slow one, on another worker: it answers while the slow one runs.
      const sane = await grep({ pattern: 'fine' })
      return { sane, slowSettledFirst, slow: await slow }
    })
    expect(result.sane.modelContent).toBe('Found 1 file\nok.txt')
    expect(result.slowSettledFirst).toBe(false)
    expect(result.slow).toMatchObject({ status: 'failed', isError: true })
    expect(textOf(result.slow.modelContent)).toContain('backtracks catastrophically')
    // Not a speed target: the event loop was never held, where it used to be held for the whole 2 s.
    expect(gap).toBeLessThan(500)
  }, 20_000)

  it('answers another session while one session runs more catastrophic Greps than there are workers', async () => {
    const { grep } = await harness({ 'slow.txt': SLOW_LINE, 'ok.txt': 'fine\n' })
    await grep({ pattern: 'warm' })
    const controller = new AbortController()
    let settled = 0
    const greedy = Array.from({ length: grepPool().size * 3 }, () => grep({ pattern: SLOW, path: 'slow.txt' }, { sessionId: 'greedy', signal: controller.signal }).finally(() => settled++))
    try {
      const other = await grep({ pattern: 'fine' }, { sessionId: 'other' })
      expect(other.modelContent).toBe('Found 1 file\nok.txt')
      // Answered while most of the greedy session's Greps still run (in the queue of before, only after all of them);
      // a few may have been stopped at their limit while the other session's thread started (~1 s through tsx).
      expect(settled).toBeLessThanOrEqual(grepPool().size)
    } finally {
      controller.abort(new Error('stopped by the client'))
      await Promise.all(greedy)
    }
  }, 30_000)

  it('terminates the worker of an aborted search, and the next search runs', async () => {
    const { grep } = await harness({ 'slow.txt': SLOW_LINE.repeat(4), 'ok.txt': 'fine\n' })
    const controller = new AbortController()
    const aborted = grep({ pattern: SLOW }, { signal: controller.signal })
    setTimeout(() => controller.abort(new Error('stopped by the client')), 200)
    const result = await aborted
    expect(result.status).not.toBe('succeeded')
    // Ended by the abort, not by the 2 s limit.
    expect(textOf(result.modelContent)).not.toContain('backtracks catastrophically')
    expect((await grep({ pattern: 'fine' })).modelContent).toBe('Found 1 file\nok.txt')
  }, 20_000)

  it('keeps results identical to GNU grep across trees and patterns, batches and workers', async () => {
    // Same file names in sibling directories, and more files than the first batches hold.
    const fileArb = fc.array(fc.constantFrom('foo bar', 'bar baz 42', 'x marks', 'nothing', 'a.c abc', 'foo', '', 'zzz 7'), { minLength: 0, maxLength: 6 })
    const treeArb = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'a/c', 'b/c', 'd'), fc.constantFrom('f1.txt', 'f2.txt', 'g.txt'), fileArb), { minLength: 1, maxLength: 40 })
    // The last ones have a required literal that a naive reading gets wrong (the prefilter's cases).
    const patternArb = fc.constantFrom('foo', 'ba[rz]', '^x', 'o+ b', 'a.c', '[0-9]+$', 'zzz', 'o', 'foo|zzz', 'bar? ba', 'b(ar)? ba', 'ba{0}r b', 'x?y? marks', 'fo*o+ ba')
    await fc.assert(
      fc.asyncProperty(treeArb, patternArb, async (entries, pattern) => {
        const files: Record<string, string> = {}
        for (const [dir, name, lines] of entries) files[`${dir}/${name}`] = lines.map((line) => `${line}\n`).join('')
        const { workspace, grep } = await harness(files)
        const gnu = (args: readonly string[]): string[] => {
          try {
            return execFileSync('grep', ['-rE', ...args, pattern, '.'], { cwd: workspace })
              .toString()
              .split('\n')
              .filter((line) => line !== '')
          } catch {
            return []
          }
        }
        const clean = (lines: readonly string[]) => lines.map((line) => line.replace(/^\.\//, '')).sort()
        const content = textOf((await grep({ pattern, output_mode: 'content' })).modelContent)
        const expected = clean(gnu(['-n']))
        expect(content === 'No matches found' ? [] : content.split('\n')).toEqual(expected)
        const listed = textOf((await grep({ pattern })).modelContent)
          .split('\n')
          .slice(1)
        expect(listed).toEqual(clean(gnu(['-l'])))
        const counts = textOf((await grep({ pattern, output_mode: 'count' })).modelContent).split('\n\n')[0] as string
        expect(expected.length === 0 ? [] : counts.split('\n')).toEqual(clean(gnu(['-c'])).filter((line) => !line.endsWith(':0')))
      }),
      { numRuns: 25 },
    )
  }, 60_000)
})

describe('GrepPool', () => {
  const spec = (key: number, pattern: string): SearchSpec => ({ key, pattern, ignoreCase: false, mode: 'content', lineNumbers: true, before: 0, after: 0 })

  it('replaces a worker it had to stop, and hands the other batches it held to the next', async () => {
    const { workspace } = await workspaceWith('grep-pool', { 'slow.txt': SLOW_LINE, 'ok.txt': 'fine\n' })
    const pool = new GrepPool({ size: 1, limitMs: 500 })
    const guard = { roots: [workspace], workspace }
    const directory = (name: string) => ({ openPrefix: `${workspace}/`, absolutePrefix: `${workspace}/`, labelPrefix: '', pinned: false, names: [name], links: [] })
    try {
      // One worker: the second batch waits behind the stuck one, in the same thread.
      const stuck = pool.run({ spec: spec(1, SLOW), guard, room: 10, stopAtCap: false, directories: [directory('slow.txt')] }, 's1')
      const behind = pool.run({ spec: spec(2, 'fine'), guard, room: 10, stopAtCap: false, directories: [directory('ok.txt')] }, 's1')
      await expect(stuck).rejects.toMatchObject({ code: 'TOOL_ERR_PATTERN_TOO_SLOW' })
      const batch = await behind
      expect(Buffer.from(batch.bytes).toString()).toBe('ok.txt:1:fine\n')
      expect(pool.threads).toBe(1)
    } finally {
      await pool.close()
    }
    expect(pool.threads).toBe(0)
  }, 20_000)

  /** Resolves with the batch's text, or rejects once `ms` have passed. */
  const within = async (batch: Promise<{ bytes: Uint8Array }>, ms: number): Promise<string> => {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`not served within ${ms} ms`)), ms)))
    try {
      return Buffer.from((await Promise.race([batch, late])).bytes).toString()
    } finally {
      clearTimeout(timer)
    }
  }

  it('serves another session at once while one session holds every worker with stuck batches', async () => {
    const { workspace } = await workspaceWith('grep-pool-fair', { 'slow.txt': SLOW_LINE, 'ok.txt': 'fine\n' })
    // The stuck batches would be stopped only after 30 s: nothing frees a worker meanwhile.
    const pool = new GrepPool({ size: 1, limitMs: 30_000 })
    const guard = { roots: [workspace], workspace }
    const directory = (name: string) => ({ openPrefix: `${workspace}/`, absolutePrefix: `${workspace}/`, labelPrefix: '', pinned: false, names: [name], links: [] })
    const batch = (key: number, pattern: string, name: string, owner: string) => pool.run({ spec: spec(key, pattern), guard, room: 10, stopAtCap: false, directories: [directory(name)] }, owner)
    try {
      const stuck = [1, 2, 3].map((key) => batch(key, SLOW, 'slow.txt', 'greedy'))
      for (const one of stuck) one.catch(() => undefined)
      expect(await within(batch(4, 'fine', 'ok.txt', 'other'), 10_000)).toBe('ok.txt:1:fine\n')
      // Still one worker for the greedy session, and one thread for the other.
      expect(pool.threads).toBeLessThanOrEqual(3)
    } finally {
      await pool.close()
    }
  }, 30_000)

  it('serves a seventh session at once while six sessions each hold a stuck batch and the pool has two workers', async () => {
    const { workspace } = await workspaceWith('grep-pool-six', { 'slow.txt': SLOW_LINE, 'ok.txt': 'fine\n' })
    const pool = new GrepPool({ size: 2, limitMs: 30_000 })
    const guard = { roots: [workspace], workspace }
    const directory = (name: string) => ({ openPrefix: `${workspace}/`, absolutePrefix: `${workspace}/`, labelPrefix: '', pinned: false, names: [name], links: [] })
    const batch = (key: number, pattern: string, name: string, owner: string) => pool.run({ spec: spec(key, pattern), guard, room: 10, stopAtCap: false, directories: [directory(name)] }, owner)
    try {
      const stuck = [1, 2, 3, 4, 5, 6].map((key) => batch(key, SLOW, 'slow.txt', `s${key}`))
      for (const one of stuck) one.catch(() => undefined)
      expect(await within(batch(7, 'fine', 'ok.txt', 's7'), 20_000)).toBe('ok.txt:1:fine\n')
    } finally {
      await pool.close()
    }
  }, 40_000)

  it('gives sessions whose batches were stopped as too slow no thread beyond the pool, and keeps one for a newcomer', async () => {
    const { workspace } = await workspaceWith('grep-pool-stopped', { 'slow.txt': SLOW_LINE, 'ok.txt': 'fine\n' })
    const pool = new GrepPool({ size: 2, limitMs: 400, longBatchMs: 50 })
    const guard = { roots: [workspace], workspace }
    const directory = (name: string) => ({ openPrefix: `${workspace}/`, absolutePrefix: `${workspace}/`, labelPrefix: '', pinned: false, names: [name], links: [] })
    const batch = (key: number, pattern: string, name: string, owner: string) => pool.run({ spec: spec(key, pattern), guard, room: 10, stopAtCap: false, directories: [directory(name)] }, owner)
    const owners = ['s1', 's2', 's3', 's4', 's5', 's6']
    try {
      // A first round: each session is a newcomer, gets a thread, and has its batch stopped.
      const first = await Promise.allSettled(owners.map((owner, index) => batch(index + 1, SLOW, 'slow.txt', owner)))
      expect(first.every((outcome) => outcome.status === 'rejected')).toBe(true)
      // A second round: the stopped sessions share the pool's two workers; one more thread at most is kept spare.
      const again = owners.map((owner, index) => batch(index + 11, SLOW, 'slow.txt', owner))
      for (const one of again) one.catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 150))
      expect(pool.threads).toBeLessThanOrEqual(pool.size + 1)
      expect(await within(batch(20, 'fine', 'ok.txt', 'newcomer'), 10_000)).toBe('ok.txt:1:fine\n')
    } finally {
      await pool.close()
    }
  }, 60_000)

  it('lowers the priority of a thread running a long batch (Linux)', async () => {
    const { workspace } = await workspaceWith('grep-pool-nice', { 'slow.txt': SLOW_LINE })
    const pool = new GrepPool({ size: 1, limitMs: 30_000, longBatchMs: 100 })
    const guard = { roots: [workspace], workspace }
    const niceOfThreads = (): number[] =>
      readdirSync('/proc/self/task').map((id) => {
        const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
      })
    const normal = os.getPriority()
    try {
      const directories = [{ openPrefix: `${workspace}/`, absolutePrefix: `${workspace}/`, labelPrefix: '', pinned: false, names: ['slow.txt'], links: [] }]
      pool.run({ spec: spec(1, SLOW), guard, room: 10, stopAtCap: false, directories }, 'one').catch(() => undefined)
      await vi.waitFor(() => expect(niceOfThreads()).toContain(Math.min(19, normal + 10)), { timeout: 15_000, interval: 50 })
      // The process's other threads keep their priority.
      expect(niceOfThreads().filter((nice) => nice === normal).length).toBeGreaterThan(0)
    } finally {
      await pool.close()
    }
  }, 20_000)

  it('is shared by the calls of the process and closes with it', async () => {
    const { grep } = await harness({ 'ok.txt': 'fine\n' })
    await grep({ pattern: 'fine' })
    expect(grepPool().threads).toBeGreaterThan(0)
    await closeGrepPool()
    expect(grepPool().threads).toBe(0)
    expect((await grep({ pattern: 'fine' })).modelContent).toBe('Found 1 file\nok.txt')
  })
})
