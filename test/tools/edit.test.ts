import { mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FileDiffDisplay } from '../../src/contracts/display.js'
import type { TurnContext } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createEditTool } from '../../src/tools/edit/index.js'
import { createReadTool } from '../../src/tools/read/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { InMemoryFileStateStore } from '../../src/tools/services.js'
import { sha256Of } from '../../src/tools/write/file-state.js'
import type { RecordedFileChange } from '../../src/tools/write/recorded-change.js'
import { tempDir } from '../support/permission-tools.js'
import { createTestExecutor } from '../support/executor.js'

async function harness() {
  const root = await realpath(await tempDir('edit'))
  const workspace = path.join(root, 'ws')
  await mkdir(workspace)
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createReadTool(), createEditTool()]),
    artifacts: new FsArtifactStore({ dataDir: path.join(root, 'data') }),
    services: { fileState: new InMemoryFileStateStore() },
  })
  let next = 0
  const call = (name: string, input: unknown, turn: Partial<TurnContext> = {}): Promise<ToolExecutionResult> =>
    executor.execute({ id: `e${++next}`, name, input }, { sessionId: 's1', workspace, permissionMode: 'acceptEdits', ...turn })
  /** Writes a file and reads it through Read, as the model would before an edit. */
  const readFileIn = async (name: string, content: string | Buffer): Promise<string> => {
    const file = path.join(workspace, name)
    await writeFile(file, content)
    await call('Read', { file_path: name })
    return file
  }
  const edit = (input: Record<string, unknown>) => call('Edit', { file_path: 'f.txt', ...input })
  return { workspace, call, readFileIn, edit }
}

describe('Edit', () => {
  it('R38 replaces one exact match, says so, and shows an update file_diff', async () => {
    const { readFileIn, edit } = await harness()
    const file = await readFileIn('f.txt', 'alpha\nbeta\ngamma\n')
    const result = await edit({ old_string: 'beta', new_string: 'BETA' })
    expect(result.modelContent).toBe(`The file ${file} has been updated successfully (1 replacement).`)
    expect(await readFile(file, 'utf8')).toBe('alpha\nBETA\ngamma\n')
    expect(result.output).toEqual<RecordedFileChange>({
      type: 'update',
      filePath: file,
      replacements: 1,
      oldBytes: 17,
      newBytes: 17,
      oldSha256: sha256Of(Buffer.from('alpha\nbeta\ngamma\n')),
      newSha256: sha256Of(Buffer.from('alpha\nBETA\ngamma\n')),
    })
    expect(result.display).toMatchObject<Partial<FileDiffDisplay>>({ kind: 'file_diff', operation: 'update', additions: 1, deletions: 1, truncated: false })
  })

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['zero matches', { old_string: 'delta', new_string: 'x' }, /^old_string was not found in .*f\.txt \(0 matches\): "delta"\. Read the file again/],
    ['several matches without replace_all', { old_string: 'a', new_string: 'x' }, /^old_string matches 3 places in .*f\.txt, but replace_all is false: "a"\. .*replace all 3\.$/],
    ['the same old and new string', { old_string: 'b', new_string: 'b' }, /^No changes to make: old_string and new_string are exactly the same\.$/],
    ['an empty old_string on a file with content', { old_string: '', new_string: 'x' }, /^old_string is empty but .*f\.txt is not/],
    ['a new_string with an unpaired surrogate, which UTF-8 cannot store', { old_string: 'b', new_string: 'x\ud800' }, /^The text to write has an unpaired UTF-16 surrogate \(\\ud800 at character 3\)/],
  ])('R26 refuses %s with a tool_use_error that says which, and leaves the file', async (_name, input, message) => {
    const { readFileIn, edit } = await harness()
    const file = await readFileIn('f.txt', 'a\nb\na\na\n')
    const result = await edit(input)
    expect(result.status).toBe('failed')
    const text = result.modelContent as string
    expect(text.startsWith('<tool_use_error>') && text.endsWith('</tool_use_error>')).toBe(true)
    expect(text.slice('<tool_use_error>'.length, -'</tool_use_error>'.length)).toMatch(message)
    expect(await readFile(file, 'utf8')).toBe('a\nb\na\na\n')
  })

  it('R38 replaces every match with replace_all and counts them', async () => {
    const { readFileIn, edit } = await harness()
    const file = await readFileIn('f.txt', 'a-b-a-a')
    const result = await edit({ old_string: 'a', new_string: 'zz', replace_all: true })
    expect(result.modelContent).toBe(`The file ${file} has been updated successfully (3 replacements).`)
    expect(await readFile(file, 'utf8')).toBe('zz-b-zz-zz')
  })

  it('R38 keeps replacement patterns such as $& literal', async () => {
    const { readFileIn, edit } = await harness()
    const file = await readFileIn('f.txt', 'price\n')
    await edit({ old_string: 'price', new_string: "$& $1 $$ $'" })
    expect(await readFile(file, 'utf8')).toBe("$& $1 $$ $'\n")
  })

  it('R38 matches LF text in a CRLF file and writes the new LF breaks as CRLF; the BOM stays', async () => {
    const { readFileIn, edit } = await harness()
    const file = await readFileIn('f.txt', '\ufeffone\r\ntwo\r\nthree\r\n')
    const result = await edit({ old_string: 'one\ntwo\n', new_string: 'uno\ndos\ndos bis\n' })
    expect(result.status).toBe('succeeded')
    expect((await readFile(file)).toString('utf8')).toBe('\ufeffuno\r\ndos\r\ndos bis\r\nthree\r\n')
  })

  it.each<[string, (file: string) => Promise<void>, RegExp]>([
    ['never read', () => Promise.resolve(undefined), /exists and has not been read in this session\. Read it first/],
    ['changed since it was read', async (file) => writeFile(file, 'x\ny\n'), /has changed on disk since it was last read \(2 bytes then, 4 now\)/],
  ])('R26 refuses to edit a file %s', async (name, change, message) => {
    const { workspace, call, edit } = await harness()
    const file = path.join(workspace, 'f.txt')
    await writeFile(file, 'x\n')
    if (name !== 'never read') await call('Read', { file_path: 'f.txt' })
    await change(file)
    const result = await edit({ old_string: 'x', new_string: 'z' })
    expect(result.modelContent).toMatch(message)
  })

  it('R38 creates a new file from an empty old_string; a missing file with an old_string is an error', async () => {
    const { workspace, call } = await harness()
    const created = await call('Edit', { file_path: 'sub/new.txt', old_string: '', new_string: 'hello\n' })
    expect(created.modelContent).toBe(`File created successfully at: ${path.join(workspace, 'sub/new.txt')}`)
    expect(created.display).toMatchObject({ kind: 'file_diff', operation: 'create', additions: 1 })
    const missing = await call('Edit', { file_path: 'nope.txt', old_string: 'a', new_string: 'b' })
    expect(missing.modelContent).toMatch(/^<tool_use_error>.*nope\.txt does not exist\. Use an empty old_string to create it, or Write\.<\/tool_use_error>$/)
    expect(await readdir(workspace)).toEqual(['sub'])
  })

  it('R26 refuses to edit an image it has read, which text edits would mangle', async () => {
    const { readFileIn, edit } = await harness()
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
    const file = await readFileIn('f.txt', png)
    const result = await edit({ old_string: 'IHDR', new_string: 'XXXX' })
    expect(result.modelContent).toBe(`<tool_use_error>${file} is a binary file; Edit changes text files only. Use Write to replace it whole.</tool_use_error>`)
    expect(await readFile(file)).toEqual(png)
  })

  it('R38 lets a second edit follow the first without a new read', async () => {
    const { readFileIn, edit } = await harness()
    const file = await readFileIn('f.txt', 'a b c\n')
    await edit({ old_string: 'a', new_string: 'A' })
    const second = await edit({ old_string: 'c', new_string: 'C' })
    expect(second.status).toBe('succeeded')
    expect(await readFile(file, 'utf8')).toBe('A b C\n')
  })

  it('R20 Edit has a 30000 ms deadline and the budget of appendix A1', () => {
    const entry = createEditTool()
    expect(resolveTimeoutMs(entry, { file_path: 'a', old_string: 'a', new_string: 'b' }, 300_000)).toBe(30_000)
    expect(entry.resultBudget).toEqual({ maxInlineBytes: 1_000_000, maxModelBytes: 100_000, strategy: 'truncate', previewDirection: 'head' })
  })
})
