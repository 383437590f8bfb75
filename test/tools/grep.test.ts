import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { MATCHING_LIMIT_MS } from '../../src/tools/grep/grep-pool.js'
import { createGrepTool } from '../../src/tools/grep/index.js'
import { grepHarness } from '../support/grep-harness.js'
import { textOf } from '../support/model-text.js'

async function harness(files: Readonly<Record<string, string | Buffer>> = {}) {
  const { root, workspace, grep } = await grepHarness('grep', files)
  const text = async (input: Record<string, unknown>): Promise<string> => (await grep(input)).modelContent as string
  /** The whole output, from the artifact when the budget saved it there. */
  const fullText = async (input: Record<string, unknown>): Promise<string> => {
    const result = await grep(input)
    const saved = result.serialization.persistedPath
    return saved === undefined ? (result.modelContent as string) : readFile(saved, 'utf8')
  }
  /** GNU grep in the workspace, the oracle for line numbers and context. */
  const gnu = (args: readonly string[]): string => {
    try {
      return execFileSync('grep', [...args], { cwd: workspace, maxBuffer: 1 << 26 })
        .toString()
        .replace(/\n$/, '')
    } catch (error) {
      return String((error as { stdout?: Buffer }).stdout ?? '').replace(/\n$/, '')
    }
  }
  return { root, workspace, grep, text, fullText, gnu }
}

const TREE = {
  'b.txt': 'alpha\nBeta\ngamma beta\n',
  'a.txt': 'beta one\nno\nbeta two\n',
  'src/c.ts': 'const beta = 1\n',
  'src/d.js': 'nothing here\n',
}

/** 6000 numbered lines (about 200 KB) and, with `repeat`, over 1 MiB so that Grep reads it in chunks. */
function numberedLines(count: number): string {
  return Array.from({ length: count }, (_, n) => `row ${String(n + 1).padStart(6, '0')} ${n % 997 === 0 ? 'MARK' : 'filler'} ${'.'.repeat(n % 40)}`).join('\n') + '\n'
}

describe('Grep', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['files_with_matches by default, sorted', { pattern: 'beta' }, 'Found 3 files\na.txt\nb.txt\nsrc/c.ts'],
    ['content with line numbers', { pattern: 'beta', output_mode: 'content' }, 'a.txt:1:beta one\na.txt:3:beta two\nb.txt:3:gamma beta\nsrc/c.ts:1:const beta = 1'],
    ['content without line numbers', { pattern: 'two', output_mode: 'content', '-n': false }, 'a.txt:beta two'],
    ['-i', { pattern: 'BETA', '-i': true, output_mode: 'content' }, 'a.txt:1:beta one\na.txt:3:beta two\nb.txt:2:Beta\nb.txt:3:gamma beta\nsrc/c.ts:1:const beta = 1'],
    ['(?i) as ripgrep writes it', { pattern: '(?i)^BETA$' }, 'Found 1 file\nb.txt'],
    ['count', { pattern: 'beta', output_mode: 'count' }, 'a.txt:2\nb.txt:1\nsrc/c.ts:1\n\nFound 4 matching lines in 3 files'],
    ['a glob on the file name', { pattern: 'beta', glob: '*.ts' }, 'Found 1 file\nsrc/c.ts'],
    ['a negated glob', { pattern: 'beta', glob: '!*.txt' }, 'Found 1 file\nsrc/c.ts'],
    ['a type', { pattern: '.', type: 'js' }, 'Found 1 file\nsrc/d.js'],
    ['a path', { pattern: 'e', path: 'src' }, 'Found 2 files\nsrc/c.ts\nsrc/d.js'],
    ['a single file as path', { pattern: 'beta', path: 'a.txt', output_mode: 'content' }, 'a.txt:1:beta one\na.txt:3:beta two'],
    ['no match', { pattern: 'zeta' }, 'No matches found'],
  ])('R31 searches with %s', async (_name, input, expected) => {
    const { text } = await harness(TREE)
    expect(await text(input)).toBe(expected)
  })

  it.each<[string, Record<string, unknown>, string]>([
    ['a non-ASCII literal in the raw bytes', { pattern: 'café', output_mode: 'content' }, 'u.txt:2:un café crème'],
    ['a Unicode property escape', { pattern: '^\\p{Lu}\\p{Ll}+$', output_mode: 'content' }, 'u.txt:1:Élan'],
    ['a non-ASCII pattern ignoring case', { pattern: 'CRÈME', '-i': true, output_mode: 'content' }, 'u.txt:2:un café crème'],
  ])('R31 searches UTF-8 text: %s', async (_name, input, expected) => {
    const { text } = await harness({ 'u.txt': 'Élan\nun café crème\nnaïve\n' })
    expect(await text(input)).toBe(expected)
  })

  it.each<[string, Record<string, unknown>, string]>([
    ['a pattern never spans lines', { pattern: 'one\\sno', output_mode: 'count' }, 'No matches found'],
    ['a class with a newline in it decides on the line alone', { pattern: 'one[^x]*', output_mode: 'content' }, 'a.txt:1:beta one'],
    ['^ and $ anchor at each line', { pattern: '^no$', output_mode: 'content' }, 'a.txt:2:no'],
    ['an empty match does not add a line after the last one', { pattern: 'x*', output_mode: 'count', path: 'a.txt' }, 'a.txt:3\n\nFound 3 matching lines in 1 file'],
  ])('R31 matches line by line, as grep: %s', async (_name, input, expected) => {
    const { text } = await harness(TREE)
    expect(await text(input)).toBe(expected)
  })

  it.each<[string, readonly string[], Record<string, unknown>]>([
    ['-C 2 around a literal', ['-C', '2', 'MARK'], { pattern: 'MARK', '-C': 2 }],
    ['-B 3 before a regular expression', ['-B', '3', '-E', 'row 0+[0-9]*7 filler'], { pattern: 'row 0+[0-9]*7 filler', '-B': 3 }],
    ['-A 1 after adjacent matches', ['-A', '1', '-E', 'row 00001[0-2]'], { pattern: 'row 00001[0-2]', '-A': 1 }],
  ])('R31 prints context like GNU grep (%s), in one chunk and across chunks of a large file', async (_name, gnuArgs, input) => {
    const { fullText, gnu } = await harness({ 'small.txt': numberedLines(6000), 'large.txt': numberedLines(40_000) })
    for (const file of ['small.txt', 'large.txt']) {
      const expected = gnu(['-H', '-n', ...gnuArgs, file])
      expect(await fullText({ ...input, path: file, output_mode: 'content' })).toBe(expected)
    }
  })

  it('R31 gives GNU grep line numbers across the 1 MiB chunks of a large file', async () => {
    const { fullText, gnu } = await harness({ 'large.txt': numberedLines(40_000) })
    for (const pattern of ['MARK', 'MAR[K]']) {
      expect(await fullText({ pattern, path: 'large.txt', output_mode: 'content' })).toBe(gnu(['-H', '-n', pattern, 'large.txt']))
    }
  })

  it('R31 skips binary files and what .gitignore excludes, and never searches .git', async () => {
    const { text } = await harness({
      '.gitignore': 'build/\n',
      'build/out.txt': 'needle\n',
      '.git/config': 'needle\n',
      'blob.bin': Buffer.from('needle\u0000\u0001'),
      'keep.txt': 'needle\n',
    })
    expect(await text({ pattern: 'needle' })).toBe('Found 1 file\nkeep.txt')
  })

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an invalid regular expression', { pattern: 'a(b' }, /^<tool_use_error>Invalid regular expression "a\(b": Unterminated group\. Grep uses JavaScript regular expressions/],
    ['an unknown type', { pattern: 'a', type: 'cobol' }, /^<tool_use_error>Unknown file type "cobol"\. Known types: c, cpp, /],
    ['a missing path', { pattern: 'a', path: 'nope' }, /^<tool_use_error>Path does not exist: /],
  ])('R26 refuses %s with a tool_use_error', async (_name, input, message) => {
    const { grep } = await harness(TREE)
    const result = await grep(input)
    expect(result.status).toBe('failed')
    expect(result.modelContent).toMatch(message)
  })

  it('R32 stops at head_limit with a note that more exist', async () => {
    const { text } = await harness(TREE)
    expect(await text({ pattern: 'beta', head_limit: 2 })).toBe(
      'Found 2 files\na.txt\nb.txt\n\n[Stopped at head_limit: the first 2 files are shown and more exist. Raise head_limit or narrow the search with path, glob or type.]',
    )
    expect(await text({ pattern: 'beta', output_mode: 'content', head_limit: 4 })).toBe('a.txt:1:beta one\na.txt:3:beta two\nb.txt:3:gamma beta\nsrc/c.ts:1:const beta = 1')
  })

  it('R32 keeps at most 20000 content lines and says how many were left out', async () => {
    const { grep } = await harness({ 'many.txt': 'hit\n'.repeat(20_005) })
    const result = await grep({ pattern: 'hit', output_mode: 'content' })
    expect(result.serialization.strategy).toBe('artifact')
    const full = await readFile(result.serialization.persistedPath as string, 'utf8')
    expect(full.split('\n').filter((line) => line.startsWith('many.txt:'))).toHaveLength(20_000)
    expect(full.endsWith('\n\n[Showing the first 20000 lines; 5 more left out. Narrow the search with path, glob or type, or set head_limit.]')).toBe(true)
  })

  it('R33 saves output over 20000 bytes as an artifact and gives the model the envelope', async () => {
    const { grep } = await harness({ 'wide.txt': `${'match '.repeat(50)}\n`.repeat(100) })
    const result = await grep({ pattern: 'match', output_mode: 'content' })
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'artifact', originalBytes: 31_291 })
    expect(result.modelContent).toMatch(/^<persisted-output>\nOutput too large \(31 KB\)\. Full output saved to: .*\n\nPreview \(first 2 KB\):\nwide\.txt:1:match /)
    expect((await readFile(result.serialization.persistedPath as string, 'utf8')).split('\n')).toHaveLength(100)
  })

  it('R20 Grep has a 30000 ms deadline and the budget of appendix A1', () => {
    const entry = createGrepTool()
    expect(resolveTimeoutMs(entry, { pattern: 'a' }, 300_000)).toBe(30_000)
    expect(entry.resultBudget).toEqual({ maxInlineBytes: 20_000, maxModelBytes: 20_000, strategy: 'artifact', previewDirection: 'head' })
  })
})

describe('Grep with a pattern that backtracks catastrophically', () => {
  const SLOW = '(a+)+$'
  const LINE = `${'a'.repeat(40)}b\n`

  it.each([
    ['over a tree', { pattern: SLOW }],
    ['in one file', { pattern: SLOW, path: 'slow.txt' }],
    ['case-insensitively, in content mode', { pattern: SLOW, '-i': true, output_mode: 'content' }],
  ])(
    'is stopped %s within its bound, with an error the model can act on, and the server goes on',
    async (_case, input) => {
      const { grep } = await harness({ 'ok.txt': 'fine\n', 'slow.txt': LINE })
      const started = performance.now()
      const result = await grep(input)
      expect(performance.now() - started).toBeLessThan(MATCHING_LIMIT_MS + 1_500)
      expect(result).toMatchObject({ status: 'failed', isError: true })
      expect(textOf(result.modelContent)).toContain('backtracks catastrophically')
      expect(textOf(result.modelContent)).toContain(JSON.stringify(SLOW))
      // Afterwards the server goes on: the same harness answers a sane pattern at once.
      expect((await grep({ pattern: 'fine' })).modelContent).toBe('Found 1 file\nok.txt')
    },
    15_000,
  )

  it('leaves a sane pattern on long text alone', async () => {
    const { text } = await harness({ 'big.txt': numberedLines(60_000) })
    expect(await text({ pattern: 'MARK', output_mode: 'count' })).toContain('big.txt:61')
  })
})

describe('Grep in one large file', () => {
  it('lets the event loop turn between chunks, so other sessions go on meanwhile', async () => {
    const line = 'row filler text that does not match the pattern at all\n'
    const lines = Math.ceil((96 * 1024 * 1024) / line.length)
    const { grep } = await harness({ 'big.txt': line.repeat(lines) + 'the needle\n' })
    const gaps: number[] = []
    let last = performance.now()
    const ticker = setInterval(() => {
      const now = performance.now()
      gaps.push(now - last)
      last = now
    }, 5)
    const started = performance.now()
    const result = await grep({ pattern: 'need[l]e', path: 'big.txt', output_mode: 'content' })
    const took = performance.now() - started
    clearInterval(ticker)
    expect(result.modelContent).toBe(`big.txt:${lines + 1}:the needle`)
    expect(gaps.length).toBeGreaterThanOrEqual(3)
    expect(Math.max(...gaps)).toBeLessThan(Math.max(150, took / 3))
  }, 30_000)
})
