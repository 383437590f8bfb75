import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { TurnContext } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createGlobTool } from '../../src/tools/glob/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { InMemoryFileStateStore } from '../../src/tools/services.js'
import { collectEvents } from '../support/tools.js'
import { workspaceWith } from '../support/permission-tools.js'
import { createTestExecutor } from '../support/executor.js'

async function harness(files: Readonly<Record<string, string>> = {}) {
  const { root, workspace } = await workspaceWith('glob', files)
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createGlobTool()]),
    artifacts: new FsArtifactStore({ dataDir: path.join(root, 'data') }),
    services: { fileState: new InMemoryFileStateStore() },
  })
  let next = 0
  const glob = (input: unknown, turn: Partial<TurnContext> = {}): Promise<ToolExecutionResult> => executor.execute({ id: `g${++next}`, name: 'Glob', input }, { sessionId: 's1', workspace, ...turn })
  return { root, workspace, glob }
}

const TREE = {
  'b.ts': '',
  'a.ts': '',
  'src/z.ts': '',
  'src/a.js': '',
  'src/deep/x.ts': '',
  'src.ts': '',
  '.hidden/h.ts': '',
}

describe('Glob', () => {
  it.each<[string, Record<string, string>, string]>([
    ['**/*.ts at any depth, sorted by path', { pattern: '**/*.ts' }, '.hidden/h.ts\na.ts\nb.ts\nsrc.ts\nsrc/deep/x.ts\nsrc/z.ts'],
    ['*.ts only at the top', { pattern: '*.ts' }, 'a.ts\nb.ts\nsrc.ts'],
    ['a static base', { pattern: 'src/**/*.{js,ts}' }, 'src/a.js\nsrc/deep/x.ts\nsrc/z.ts'],
    ['a path to search in', { pattern: '*.ts', path: 'src' }, 'src/z.ts'],
  ])('R31 matches %s', async (_name, input, expected) => {
    const { glob } = await harness(TREE)
    expect((await glob(input)).modelContent).toBe(expected)
  })

  it('R31 says when nothing matches', async () => {
    const { glob } = await harness(TREE)
    expect((await glob({ pattern: '**/*.rs' })).modelContent).toBe('No files found')
  })

  it('R31 respects .gitignore files, nested ones and negations too, and never lists .git', async () => {
    const { glob } = await harness({
      '.gitignore': 'dist/\n*.log\n',
      'dist/out.js': '',
      'app.log': '',
      'src/.gitignore': 'secret.txt\n!keep.log\n',
      'src/secret.txt': '',
      'src/keep.log': '',
      'src/main.js': '',
      'other/secret.txt': '',
      '.git/config': '',
      '.git/HEAD': '',
    })
    expect((await glob({ pattern: '**/*' })).modelContent).toBe('.gitignore\nother/secret.txt\nsrc/.gitignore\nsrc/keep.log\nsrc/main.js')
  })

  it('R31 applies the .gitignore files above a search path too', async () => {
    const { glob } = await harness({ '.gitignore': '*.gen.ts\n', 'src/a.gen.ts': '', 'src/a.ts': '' })
    expect((await glob({ pattern: '**/*', path: 'src' })).modelContent).toBe('src/a.ts')
  })

  it('R32 caps the list at 1000 paths with a note of how many were left out', async () => {
    const files = Object.fromEntries(Array.from({ length: 1005 }, (_, n) => [`f${String(n).padStart(4, '0')}.txt`, '']))
    const { glob } = await harness(files)
    const result = await glob({ pattern: '*.txt' })
    const lines = (result.modelContent as string).split('\n')
    expect(lines.slice(0, 2)).toEqual(['f0000.txt', 'f0001.txt'])
    expect(lines.filter((line) => line.endsWith('.txt'))).toHaveLength(1000)
    expect(lines.at(-1)).toBe('(Showing the first 1000 of 1005 files; 5 left out. Use a more specific pattern or path.)')
  })

  it('R32 saves a list over 100000 bytes as an artifact and shows the envelope', async () => {
    const name = (n: number) => `${'long-directory-name-'.repeat(4)}/${String(n).padStart(3, '0')}-${'x'.repeat(60)}.txt`
    const { glob } = await harness(Object.fromEntries(Array.from({ length: 900 }, (_, n) => [name(n), ''])))
    const result = await glob({ pattern: '**/*.txt' })
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'artifact' })
    expect(result.modelContent).toMatch(/^<persisted-output>\nOutput too large \(1\d\d KB\)\. Full output saved to: /)
  })

  it('R13 splits an absolute pattern into path and pattern before anything sees the input', async () => {
    const { glob, workspace } = await harness(TREE)
    const { events, emit } = collectEvents()
    const result = await glob({ pattern: path.join(workspace, 'src', '**', '*.ts') }, { emit })
    const started = events.find((event) => event.type === 'ToolCallStarted')
    expect(started?.type === 'ToolCallStarted' ? started.input : undefined).toEqual({ pattern: '**/*.ts', path: path.join(workspace, 'src') })
    expect(result.modelContent).toBe('src/deep/x.ts\nsrc/z.ts')
  })

  it('R31 lists symlinked files but does not follow symlinked directories', async () => {
    const { glob, workspace, root } = await harness({ 'real/a.txt': '' })
    await mkdir(path.join(root, 'elsewhere'))
    await writeFile(path.join(root, 'elsewhere', 'b.txt'), '')
    await symlink(path.join(workspace, 'real', 'a.txt'), path.join(workspace, 'link.txt'))
    await symlink(path.join(root, 'elsewhere'), path.join(workspace, 'linked-dir'))
    expect((await glob({ pattern: '**/*.txt' })).modelContent).toBe('link.txt\nreal/a.txt')
  })

  it.each<[string, Record<string, string>, RegExp]>([
    ['a pattern that climbs out', { pattern: '../**/*' }, /The pattern "\.\.\/\*\*\/\*" leaves the search directory/],
    ['a missing path', { pattern: '*', path: 'nope' }, /Path does not exist: .*nope/],
    ['a file as path', { pattern: '*', path: 'a.ts' }, /a\.ts is a file, not a directory/],
  ])('R26 refuses %s with a tool_use_error', async (_name, input, message) => {
    const { glob } = await harness(TREE)
    const result = await glob(input)
    expect(result.status).toBe('failed')
    expect(result.modelContent).toMatch(message)
  })

  it('R20 Glob has a 30000 ms deadline and the budget of appendix A1', () => {
    const entry = createGlobTool()
    expect(resolveTimeoutMs(entry, { pattern: '*' }, 300_000)).toBe(30_000)
    expect(entry.resultBudget).toEqual({ maxInlineBytes: 100_000, maxModelBytes: 100_000, strategy: 'artifact', previewDirection: 'head' })
  })
})
