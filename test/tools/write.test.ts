import { chmod, mkdir, readdir, readFile, realpath, stat, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FileDiffDisplay } from '../../src/contracts/display.js'
import type { ExecutorEvent, PermissionRequestedEvent } from '../../src/contracts/events.js'
import type { HookPayload, HookRunner, TurnContext } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { createFunctionHookRunner } from '../../src/hooks/function-hook-runner.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createReadTool } from '../../src/tools/read/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { InMemoryFileStateStore } from '../../src/tools/services.js'
import { createWriteTool } from '../../src/tools/write/index.js'
import { sha256Of } from '../../src/tools/write/file-state.js'
import { answeringSink, CLIENT_ALLOW, tempDir } from '../support/permission-tools.js'
import { createTestExecutor } from '../support/executor.js'

async function harness(hooks?: HookRunner) {
  const root = await realpath(await tempDir('write'))
  const workspace = path.join(root, 'ws')
  await mkdir(workspace)
  const fileState = new InMemoryFileStateStore()
  const broker = new InMemoryPermissionBroker()
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createReadTool(), createWriteTool()]),
    artifacts: new FsArtifactStore({ dataDir: path.join(root, 'data') }),
    services: { fileState },
    broker,
    hooks,
  })
  let next = 0
  const call = (name: string, input: unknown, turn: Partial<TurnContext> = {}): Promise<ToolExecutionResult> =>
    executor.execute({ id: `w${++next}`, name, input }, { sessionId: 's1', workspace, permissionMode: 'acceptEdits', ...turn })
  const put = async (name: string, content: string | Buffer): Promise<string> => {
    const file = path.join(workspace, name)
    await mkdir(path.dirname(file), { recursive: true })
    await writeFile(file, content)
    return file
  }
  return { workspace, fileState, broker, call, put }
}

describe('Write', () => {
  it('R38 creates a file and its missing directories without a read, with a create file_diff display', async () => {
    const { call, workspace } = await harness()
    const result = await call('Write', { file_path: 'new/dir/a.txt', content: 'one\ntwo\n' })
    const file = path.join(workspace, 'new/dir/a.txt')
    expect(result.status).toBe('succeeded')
    expect(result.modelContent).toBe(`File created successfully at: ${file}`)
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n')
    expect(result.display).toEqual({
      kind: 'file_diff',
      filePath: file,
      operation: 'create',
      hunks: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 2, lines: ['+one', '+two'] }],
      additions: 2,
      deletions: 0,
      truncated: false,
    })
  })

  it('R26 refuses to overwrite a file this session has not read, and leaves it as it was', async () => {
    const { call, put } = await harness()
    const file = await put('a.txt', 'original\n')
    const result = await call('Write', { file_path: file, content: 'blind\n' })
    expect(result.status).toBe('failed')
    expect(result.modelContent).toBe(`<tool_use_error>${file} exists and has not been read in this session. Read it first, then write or edit it.</tool_use_error>`)
    expect(await readFile(file, 'utf8')).toBe('original\n')
  })

  it('refuses content with an unpaired surrogate, which UTF-8 cannot store, instead of writing U+FFFD in its place', async () => {
    const { call, workspace } = await harness()
    const result = await call('Write', { file_path: 'lone.txt', content: 'ok \u{1F600} then \udc00 alone\n' })
    expect(result.status).toBe('failed')
    expect(result.modelContent).toBe(
      '<tool_use_error>The text to write has an unpaired UTF-16 surrogate (\\udc00 at character 11), which UTF-8 cannot store; nothing was written. ' +
        'Send the character whole (both halves of its pair), or leave it out.</tool_use_error>',
    )
    await expect(stat(path.join(workspace, 'lone.txt'))).rejects.toThrow(/ENOENT/)
  })

  it('R38 overwrites a file read before, shows the diff, and counts the write as a read', async () => {
    const { call, put, fileState } = await harness()
    const file = await put('a.txt', 'one\ntwo\nthree\n')
    await call('Read', { file_path: 'a.txt' })
    const first = await call('Write', { file_path: 'a.txt', content: 'one\n2\nthree\n' })
    expect(first.modelContent).toBe(`The file ${file} has been overwritten successfully.`)
    expect((first.display as FileDiffDisplay).hunks[0]?.lines).toEqual([' one', '-two', '+2', ' three'])
    expect(fileState.lastRead('s1', file)).toMatchObject({ size: 12, sha256: sha256Of(Buffer.from('one\n2\nthree\n')) })
    const second = await call('Write', { file_path: 'a.txt', content: 'again\n' })
    expect(second.status).toBe('succeeded')
    expect(await readFile(file, 'utf8')).toBe('again\n')
  })

  it('R26 refuses a file that changed on disk since it was read; a touch alone is no change', async () => {
    const { call, put } = await harness()
    const file = await put('a.txt', 'v1\n')
    await call('Read', { file_path: 'a.txt' })
    await utimes(file, new Date(), new Date(Date.now() + 5000))
    expect((await call('Write', { file_path: 'a.txt', content: 'v2\n' })).status).toBe('succeeded')
    await writeFile(file, 'changed by someone else\n')
    const refused = await call('Write', { file_path: 'a.txt', content: 'v3\n' })
    expect(refused.modelContent).toBe(`<tool_use_error>${file} has changed on disk since it was last read (3 bytes then, 24 now). Read it again before writing to it.</tool_use_error>`)
    expect(await readFile(file, 'utf8')).toBe('changed by someone else\n')
  })

  it.each<[string, string, string, string]>([
    ['CRLF line endings', 'a\r\nb\r\n', 'x\ny\n', 'x\r\ny\r\n'],
    ['a UTF-8 byte order mark', '\ufeffa\n', 'é\n', '\ufeffé\n'],
    ['LF line endings', 'a\nb\n', 'x\r\ny\n', 'x\r\ny\n'],
  ])('R38 keeps %s of the file it replaces', async (_name, before, content, after) => {
    const { call, put } = await harness()
    const file = await put('f.txt', before)
    await call('Read', { file_path: 'f.txt' })
    await call('Write', { file_path: 'f.txt', content })
    expect((await readFile(file)).toString('utf8')).toBe(after)
  })

  it('R38 writes atomically through a temporary file, keeps the mode and leaves nothing behind', async () => {
    const { call, put, workspace } = await harness()
    const file = await put('run.sh', 'echo 1\n')
    await chmod(file, 0o750)
    const before = (await stat(file)).ino
    await call('Read', { file_path: 'run.sh' })
    await call('Write', { file_path: 'run.sh', content: 'echo 2\n' })
    const after = await stat(file)
    expect(after.mode & 0o777).toBe(0o750)
    expect(after.ino).not.toBe(before)
    expect(await readdir(workspace)).toEqual(['run.sh'])
  })

  it('R26 refuses to write over a directory', async () => {
    const { call, workspace } = await harness()
    await mkdir(path.join(workspace, 'd'))
    const result = await call('Write', { file_path: 'd', content: 'x' })
    expect(result.modelContent).toBe(`<tool_use_error>${path.join(workspace, 'd')} is a directory, not a file.</tool_use_error>`)
  })

  it('R38 limits the file_diff display to 8 hunks and 160 lines, the model text stays short', async () => {
    const { call, put } = await harness()
    const old = Array.from({ length: 400 }, (_, n) => `line ${n}`).join('\n')
    await put('many.txt', old)
    await call('Read', { file_path: 'many.txt' })
    const changed = old
      .split('\n')
      .map((line, n) => (n % 20 === 0 ? `${line} changed` : line))
      .join('\n')
    const result = await call('Write', { file_path: 'many.txt', content: changed })
    const display = result.display as FileDiffDisplay
    expect(display.truncated).toBe(true)
    expect(display.hunks.length).toBeLessThanOrEqual(8)
    expect(display.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0)).toBeLessThanOrEqual(160)
    expect([display.additions, display.deletions]).toEqual([20, 20])
    expect(result.serialization.truncated).toBe(false)
  })

  it('R15 asks with the diff it would make as the approval preview', async () => {
    const { call, put, broker } = await harness()
    await put('p.txt', 'old\n')
    await call('Read', { file_path: 'p.txt' })
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const result = await call('Write', { file_path: 'p.txt', content: 'new\n' }, { permissionMode: 'default', emit: sink.emit })
    expect(result.permission).toBe('approved')
    const requested = sink.events.find((event): event is PermissionRequestedEvent => event.type === 'PermissionRequested')
    expect(requested?.preview).toMatchObject({ display: { kind: 'file_diff', operation: 'update', additions: 1, deletions: 1 } })
  })

  it('R15 names the file relative to the workspace and, when the preview cuts the diff, carries the whole one to open', async () => {
    const { call, broker, workspace } = await harness()
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const content = Array.from({ length: 400 }, (_, index) => `line ${index + 1}`).join('\n') + '\n'
    await call('Write', { file_path: path.join(workspace, 'src', 'long.txt'), content }, { permissionMode: 'default', emit: sink.emit })
    const requested = sink.events.find((event): event is PermissionRequestedEvent => event.type === 'PermissionRequested')
    const preview = requested?.preview as { title: string; display: FileDiffDisplay; wholeDiff: FileDiffDisplay }
    expect(preview.title).toBe('Create src/long.txt')
    expect(preview.display).toMatchObject({ filePath: 'src/long.txt', truncated: true, additions: 400 })
    expect(preview.wholeDiff).toMatchObject({ filePath: 'src/long.txt', truncated: false, additions: 400 })
    expect(preview.wholeDiff.hunks.flatMap((hunk) => hunk.lines)).toHaveLength(400)
  })

  it('returns and streams sizes and hashes instead of the texts of a 3 MB overwrite, while PostToolUse hooks get both texts', async () => {
    const posted: HookPayload[] = []
    const { call, put } = await harness(createFunctionHookRunner([{ event: 'PostToolUse', matcher: 'Write', name: 'keep', run: (payload) => void posted.push(payload) }]))
    const before = 'é old line\n'.repeat(250_000)
    const after = 'a new line\n'.repeat(300_000)
    const file = await put('big.txt', before)
    await call('Read', { file_path: 'big.txt', limit: 1 })
    const events: ExecutorEvent[] = []
    const result = await call('Write', { file_path: 'big.txt', content: after }, { emit: (event) => void events.push(event) })
    expect(result.status).toBe('succeeded')
    const recorded = {
      type: 'update',
      filePath: file,
      oldBytes: Buffer.byteLength(before),
      newBytes: 3_300_000,
      oldSha256: sha256Of(Buffer.from(before)),
      newSha256: sha256Of(Buffer.from(after)),
    }
    expect(result.output).toEqual(recorded)
    const streamed = events.find((event) => event.type === 'ToolCallResult')
    expect(streamed?.type === 'ToolCallResult' ? streamed.result.output : undefined).toEqual(recorded)
    expect(result.modelContent).toBe(`The file ${file} has been overwritten successfully.`)
    expect(result.display).toMatchObject({ kind: 'file_diff', operation: 'update', additions: 300_000, deletions: 250_000 })
    expect(posted[0]?.toolResult?.output).toEqual({ type: 'update', filePath: file, oldContent: before, newContent: after })
  })

  it('records a created file with no old size or hash', async () => {
    const { call, workspace } = await harness()
    const result = await call('Write', { file_path: 'fresh.txt', content: 'hello\n' })
    expect(result.output).toEqual({
      type: 'create',
      filePath: path.join(workspace, 'fresh.txt'),
      oldBytes: null,
      newBytes: 6,
      oldSha256: null,
      newSha256: sha256Of(Buffer.from('hello\n')),
    })
  })

  it('R20 Write has a 30000 ms deadline and the budget of appendix A1', () => {
    const entry = createWriteTool()
    expect(resolveTimeoutMs(entry, { file_path: 'a', content: '' }, 300_000)).toBe(30_000)
    expect(entry.resultBudget).toEqual({ maxInlineBytes: 1_000_000, maxModelBytes: 100_000, strategy: 'truncate', previewDirection: 'head' })
  })
})
