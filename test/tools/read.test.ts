import { mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ImageBlock, ModelContentBlock } from '../../src/contracts/model-content.js'
import type { TurnContext } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createReadTool } from '../../src/tools/read/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { InMemoryFileStateStore } from '../../src/tools/services.js'
import { sha256Of } from '../../src/tools/write/file-state.js'
import { collectEvents } from '../support/tools.js'
import { tempDir } from '../support/permission-tools.js'
import { createTestExecutor } from '../support/executor.js'
import { matching } from '../support/matchers.js'

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')

async function harness() {
  const root = await realpath(await tempDir('read'))
  const workspace = path.join(root, 'ws')
  await mkdir(workspace)
  const fileState = new InMemoryFileStateStore()
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createReadTool()]),
    artifacts: new FsArtifactStore({ dataDir: path.join(root, 'data') }),
    services: { fileState },
  })
  let next = 0
  const read = (input: unknown, turn: Partial<TurnContext> = {}): Promise<ToolExecutionResult> => executor.execute({ id: `r${++next}`, name: 'Read', input }, { sessionId: 's1', workspace, ...turn })
  const put = async (name: string, content: string | Buffer): Promise<string> => {
    const file = path.join(workspace, name)
    await mkdir(path.dirname(file), { recursive: true })
    await writeFile(file, content)
    return file
  }
  return { root, workspace, fileState, read, put }
}

function lines(count: number, text = (n: number) => `line ${n}`): string {
  return Array.from({ length: count }, (_, index) => text(index + 1)).join('\n') + '\n'
}

describe('Read', () => {
  it('R31 shows text cat -n style: right-aligned number, a tab, the line; CRLF and BOM are not shown', async () => {
    const { read, put } = await harness()
    await put('a.txt', '\ufeffalpha\r\nbeta\r\n\r\ngamma')
    const result = await read({ file_path: 'a.txt' })
    expect(result.status).toBe('succeeded')
    expect(result.modelContent).toBe('     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma')
  })

  it('R13 makes file_path absolute before the hooks, the permission and the handler see it', async () => {
    const { read, put, workspace } = await harness()
    await put('sub/b.txt', 'x\n')
    const { events, emit } = collectEvents()
    await read({ file_path: 'sub/../sub/b.txt' }, { emit })
    const started = events.find((event) => event.type === 'ToolCallStarted')
    expect(started?.type === 'ToolCallStarted' ? started.input : undefined).toEqual({ file_path: path.join(workspace, 'sub/b.txt') })
  })

  it.each<[string, Record<string, number>, string]>([
    ['offset and limit', { offset: 3, limit: 2 }, '     3\tline 3\n     4\tline 4\n\n[Showing lines 3-4 of 10. To read more, call Read with offset: 5.]'],
    ['offset 0 as 1', { offset: 0, limit: 1 }, '     1\tline 1\n\n[Showing lines 1-1 of 10. To read more, call Read with offset: 2.]'],
    ['an offset to the end', { offset: 9 }, '     9\tline 9\n    10\tline 10'],
  ])('R31 reads a window of lines (%s) and says how to read on', async (_name, window, expected) => {
    const { read, put } = await harness()
    await put('ten.txt', lines(10))
    expect((await read({ file_path: 'ten.txt', ...window })).modelContent).toBe(expected)
  })

  it('R31 reads 2000 lines by default and says how to read more', async () => {
    const { read, put } = await harness()
    await put('long.txt', lines(2500))
    const content = (await read({ file_path: 'long.txt' })).modelContent as string
    expect(content.split('\n').filter((line) => /^\s+\d+\t/.test(line))).toHaveLength(2000)
    expect(content.endsWith('  2000\tline 2000\n\n[Showing lines 1-2000 of 2500. To read more, call Read with offset: 2001.]')).toBe(true)
  })

  it('R31 cuts a line over 2000 characters with a note, never inside a surrogate pair', async () => {
    const { read, put } = await harness()
    await put('wide.txt', `${'a'.repeat(1999)}${'😀'.repeat(10)}\nshort\n`)
    const [first, second] = ((await read({ file_path: 'wide.txt' })).modelContent as string).split('\n')
    expect(first).toBe(`     1\t${'a'.repeat(1999)}... [line truncated at 2000 characters]`)
    expect(second).toBe('     2\tshort')
  })

  it('R32 stops a window at its size limit with a note, inside the 262144-byte budget', async () => {
    const { read, put } = await harness()
    await put(
      'wide-lines.txt',
      lines(300, () => 'é'.repeat(2000)),
    )
    const result = await read({ file_path: 'wide-lines.txt', limit: 300 })
    const content = result.modelContent as string
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(262_144)
    expect(result.serialization.truncated).toBe(false)
    expect(content).toMatch(/\n\n\[Showing lines 1-(\d+) of 300; the output stopped at its size limit\. To read more, call Read with offset: \d+ and a smaller limit\.\]$/)
  })

  it.each<[string, string | Buffer, Record<string, number>, RegExp]>([
    ['an over-large file', 'x'.repeat(300_000), {}, /has 300000 bytes, more than the 262144 bytes Read returns at once\. Read a part of it with offset and limit/],
    ['a binary file', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0]), {}, /is a binary file \(8 bytes\) and cannot be shown as text.*xxd -s 0 -l 512/],
    ['an offset past the end', lines(3), { offset: 7 }, /offset 7 is past the end of .*, which has 3 lines\./],
  ])('R26 refuses %s with a tool_use_error that says how to read it', async (_name, content, window, message) => {
    const { read, put } = await harness()
    await put('f.bin', content)
    const result = await read({ file_path: 'f.bin', ...window })
    expect(result.status).toBe('failed')
    expect(result.modelContent).toMatch(/^<tool_use_error>.*<\/tool_use_error>$/s)
    expect(result.modelContent).toMatch(message)
  })

  it('R26 reads a part of an over-large file when offset or limit is given', async () => {
    const { read, put } = await harness()
    await put('big.txt', lines(40_000))
    const result = await read({ file_path: 'big.txt', offset: 39_999, limit: 5 })
    expect(result.modelContent).toBe(' 39999\tline 39999\n 40000\tline 40000')
  })

  it.each<[string, (workspace: string) => Promise<string>, RegExp]>([
    ['a missing file', () => Promise.resolve('nope.txt'), /File does not exist: .*nope\.txt\. Use Glob/],
    ['a directory', async (workspace) => (await mkdir(path.join(workspace, 'dir')), 'dir'), /dir is a directory, not a file\. Use Glob/],
  ])('R26 refuses %s with a tool_use_error', async (_name, prepare, message) => {
    const { read, workspace } = await harness()
    const result = await read({ file_path: await prepare(workspace) })
    expect(result.status).toBe('failed')
    expect(result.modelContent).toMatch(message)
  })

  it('R36 returns a png as an image block that the executor saves as an artifact', async () => {
    const { read, put, root } = await harness()
    await put('pixel.dat', PNG_1X1)
    const result = await read({ file_path: 'pixel.dat' })
    const blocks = result.modelContent as ModelContentBlock[]
    expect(blocks[0]).toEqual({ type: 'text', text: matching(/^Image .*pixel\.dat \(image\/png, 70 bytes\)$/) })
    const image = blocks[1] as ImageBlock
    expect(image).toMatchObject({ type: 'image', mediaType: 'image/png', artifactUri: matching(/^toolexec-artifact:\/\/s1\//) })
    expect(image.data).toBeUndefined()
    expect(image.path?.startsWith(path.join(root, 'data', 'cli', 'artifacts', 's1'))).toBe(true)
    expect(await readFile(image.path as string)).toEqual(PNG_1X1)
  })

  it.each<[string, number[]]>([
    ['image/jpeg', [0xff, 0xd8, 0xff, 0xe0, 0, 0x10]],
    ['image/gif', [...Buffer.from('GIF89a'), 1, 0, 1, 0]],
    ['image/webp', [...Buffer.from('RIFF'), 4, 0, 0, 0, ...Buffer.from('WEBPVP8 ')]],
  ])('R36 knows %s by its magic bytes, whatever the name', async (mediaType, bytes) => {
    const { read, put } = await harness()
    await put('picture.txt', Buffer.from(bytes))
    const blocks = (await read({ file_path: 'picture.txt' })).modelContent as ModelContentBlock[]
    expect(blocks[1]).toMatchObject({ type: 'image', mediaType })
  })

  it('R12 records each read (real path, mtime, size, sha256) for the no-blind-writes rule', async () => {
    const { read, put, fileState } = await harness()
    const file = await put('c.txt', 'one\ntwo\n')
    await read({ file_path: 'c.txt', limit: 1 })
    const info = await stat(file)
    expect(fileState.lastRead('s1', file)).toEqual({ path: file, mtimeMs: info.mtimeMs, size: 8, sha256: sha256Of(Buffer.from('one\ntwo\n')) })
    expect(fileState.lastRead('s2', file)).toBeUndefined()
  })

  it('R31 says an empty file is empty', async () => {
    const { read, put } = await harness()
    await put('empty.txt', '')
    expect((await read({ file_path: 'empty.txt' })).modelContent).toMatch(/empty\.txt is empty \(0 lines\)\.$/)
  })

  it('R20 Read has a 30000 ms deadline that a call cannot override', () => {
    const entry = createReadTool()
    expect(resolveTimeoutMs(entry, { file_path: 'a', timeout: 5 }, 300_000)).toBe(30_000)
  })
})
