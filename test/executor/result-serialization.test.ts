import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ModelContentBlock } from '../../src/contracts/model-content.js'
import type { PersistedContentArgs, ResultBudget, ToolEntry } from '../../src/contracts/tool-entry.js'
import { utf8ByteLength } from '../../src/output/bytes.js'
import { DEFAULT_RESULT_BUDGET, effectiveBudgetBytes, SCREENSHOT_TEXT_BUDGET_BYTES, serializeOutput, type SerializeInput } from '../../src/executor/result-serialization.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { tempDir } from '../support/temp-dirs.js'

function makeEntry(resultBudget?: ResultBudget, extra: Partial<ToolEntry> = {}): ToolEntry {
  return {
    name: 'Read',
    description: 'test tool',
    inputSchema: Type.Object({}),
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    handler: () => Promise.resolve(''),
    ...(resultBudget === undefined ? {} : { resultBudget }),
    ...extra,
  }
}

function budget(bytes: number, strategy: ResultBudget['strategy'], previewDirection: ResultBudget['previewDirection'] = 'head'): ResultBudget {
  return { maxModelBytes: bytes, maxInlineBytes: bytes, strategy, previewDirection }
}

let dataDir: string
let store: FsArtifactStore

beforeEach(async () => {
  dataDir = await tempDir('serialize')
  store = new FsArtifactStore({ dataDir })
})

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

/** A real store that fails: its data dir is a regular file, so mkdir throws ENOTDIR. */
async function brokenStore(): Promise<FsArtifactStore> {
  const file = join(dataDir, 'not-a-dir')
  await writeFile(file, 'x')
  return new FsArtifactStore({ dataDir: file })
}

function input(entry: ToolEntry, output: unknown, artifacts?: SerializeInput['artifacts']): SerializeInput {
  return { entry, toolName: 'Read', output, sessionId: 'sess-1', callId: 'call-1', artifacts }
}

const NOTICE_300_200_TRUNCATE = '\n\n[Tool output truncated by resultBudget: originalBytes=300, maxModelBytes=200, strategy=truncate]'
const NOTICE_300_200_ARTIFACT = '\n\n[Tool output truncated by resultBudget: originalBytes=300, maxModelBytes=200, strategy=artifact]'
const AB300 = 'a'.repeat(150) + 'b'.repeat(150)

describe('serializeOutput: model content (R31)', () => {
  it.each([
    ['an empty string', ''],
    ['whitespace only', '  \n\t'],
    ['null', null],
    ['undefined', undefined],
    ['an empty block list', []],
    ['only empty text blocks', [{ type: 'text', text: '' }]],
  ])('R31 turns %s into the no-output sentence', async (_case, output) => {
    const result = await serializeOutput(input(makeEntry(), output))
    expect(result.modelContent).toBe('(Read completed with no output)')
    expect(result.fullText).toBe('(Read completed with no output)')
    expect(result.serialization).toEqual({ truncated: false, originalBytes: 31, actualBytes: 31, strategy: 'inline' })
  })

  it.each([
    ['a string as is', 'plain text', 'plain text'],
    ['an object as 2-space JSON', { a: 1, b: [true] }, '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}'],
    ['a number as JSON', 42, '42'],
    ['an array of non-blocks as JSON', [1, 'x'], '[\n  1,\n  "x"\n]'],
    ['an array with an unknown block type as JSON', [{ type: 'video' }], '[\n  {\n    "type": "video"\n  }\n]'],
  ])('R31 renders %s by default', async (_case, output, expected) => {
    const result = await serializeOutput(input(makeEntry(), output))
    expect(result.modelContent).toBe(expected)
    expect(result.fullText).toBe(expected)
  })

  it('R31 passes an array of text and image blocks through as blocks', async () => {
    const blocks = [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]
    const result = await serializeOutput(input(makeEntry(), blocks))
    expect(result.modelContent).toEqual(blocks)
    expect(result.fullText).toBe('one\ntwo')
  })

  it("R31 uses the tool's formatModelContent", async () => {
    const entry = makeEntry(undefined, { formatModelContent: (output: unknown) => `lines: ${(output as string[]).length}` })
    const result = await serializeOutput(input(entry, ['a', 'b', 'c']))
    expect(result.modelContent).toBe('lines: 3')
  })
})

describe('serializeOutput: budget (R32, R35)', () => {
  it('R32 sends output of exactly the budget inline', async () => {
    const result = await serializeOutput(input(makeEntry(budget(300, 'truncate')), AB300))
    expect(result.modelContent).toBe(AB300)
    expect(result.serialization).toEqual({ truncated: false, originalBytes: 300, actualBytes: 300, strategy: 'inline' })
  })

  it.each([
    ['head', 'a'.repeat(102) + NOTICE_300_200_TRUNCATE],
    ['tail', 'b'.repeat(102) + NOTICE_300_200_TRUNCATE],
  ] as const)('R32 keeps the %s with the exact notice under strategy truncate', async (direction, expected) => {
    const result = await serializeOutput(input(makeEntry(budget(200, 'truncate', direction)), AB300, store))
    expect(result.modelContent).toBe(expected)
    expect(result.fullText).toBe(AB300)
    expect(result.serialization).toEqual({ truncated: true, originalBytes: 300, actualBytes: 200, strategy: 'truncate' })
    expect(result.artifact).toBeUndefined()
  })

  it('R32 saves the full text as an artifact and sends the generic envelope', async () => {
    const content = 'line\n'.repeat(1200)
    const entry = makeEntry(budget(3000, 'artifact'), { retention: 'project' })
    const result = await serializeOutput(input(entry, content, store))

    const path = result.artifact?.path ?? ''
    expect(path).toMatch(/\/cli\/artifacts\/sess-1\/call-1-tool-result-[0-9a-f-]{36}\.txt$/)
    expect(await readFile(path, 'utf8')).toBe(content)
    expect(result.artifact).toMatchObject({ bytes: 6000, mediaType: 'text/plain', retention: 'project' })
    expect(result.modelContent).toBe(
      '<persisted-output>\n' + `Output too large (6 KB). Full output saved to: ${path}\n` + '\n' + 'Preview (first 2 KB):\n' + `${'line\n'.repeat(399)}line\n` + '...\n' + '</persisted-output>',
    )
    expect(result.serialization).toEqual({
      truncated: true,
      strategy: 'artifact',
      persistedPath: path,
      artifactUri: `toolexec-artifact://sess-1/${result.artifact?.id ?? ''}`,
      originalBytes: 6000,
      actualBytes: utf8ByteLength(result.modelContent as string),
    })
    expect(result.fullText).toBe(content)
  })

  it('R32 writes artifacts with retention session when the tool declares none', async () => {
    const result = await serializeOutput(input(makeEntry(budget(3000, 'artifact')), 'z'.repeat(4000), store))
    expect(result.artifact?.retention).toBe('session')
  })

  it("R32 uses the tool's formatPersistedModelContent instead of the envelope", async () => {
    const seen: PersistedContentArgs[] = []
    const entry = makeEntry(budget(3000, 'artifact', 'tail'), {
      formatPersistedModelContent(args: PersistedContentArgs) {
        seen.push(args)
        return `saved ${args.originalBytes} bytes to ${args.persistedPath}`
      },
    })
    const content = 'q'.repeat(5000)
    const result = await serializeOutput(input(entry, content, store))
    const path = result.artifact?.path ?? ''
    expect(result.modelContent).toBe(`saved 5000 bytes to ${path}`)
    expect(seen).toEqual([{ content, originalBytes: 5000, persistedPath: path, artifactUri: result.artifact?.uri }])
    expect(result.serialization.actualBytes).toBe(utf8ByteLength(`saved 5000 bytes to ${path}`))
  })

  it('R32 falls back to truncation when the artifact write throws, and the call still succeeds', async () => {
    const result = await serializeOutput(input(makeEntry(budget(200, 'artifact')), AB300, await brokenStore()))
    // The reason does not fit within 200 bytes beside the notice: the notice alone is kept.
    expect(result.modelContent).toBe('a'.repeat(102) + NOTICE_300_200_ARTIFACT)
    expect(result.serialization).toEqual({ truncated: true, originalBytes: 300, actualBytes: 200, strategy: 'truncate' })
    expect(result.artifact).toBeUndefined()
    expect(result.artifactError).toMatch(/ENOTDIR|EEXIST|not a directory/i)
  })

  it('R32 says why the full output was not saved, before the notice, when the budget has room for it', async () => {
    const content = 'y'.repeat(3000)
    const result = await serializeOutput(input(makeEntry(budget(1000, 'artifact')), content, await brokenStore()))
    const notice = `\n\n[Full output not saved: ${result.artifactError}]\n\n[Tool output truncated by resultBudget: originalBytes=3000, maxModelBytes=1000, strategy=artifact]`
    expect(result.modelContent).toBe('y'.repeat(1000 - utf8ByteLength(notice)) + notice)
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'truncate', actualBytes: 1000 })
  })

  it('R32 truncates when the strategy is artifact but no store is configured', async () => {
    const result = await serializeOutput(input(makeEntry(budget(200, 'artifact', 'tail')), AB300))
    expect(result.modelContent).toBe('b'.repeat(102) + NOTICE_300_200_ARTIFACT)
    expect(result.serialization.strategy).toBe('truncate')
    expect(result.artifactError).toBeUndefined()
  })

  it('R32 truncates with the artifact path when even the envelope exceeds the budget', async () => {
    const content = 'x'.repeat(3000)
    const result = await serializeOutput(input(makeEntry(budget(1000, 'artifact', 'tail')), content, store))
    const path = result.artifact?.path ?? ''
    const notice = `\n\n[Tool output truncated by resultBudget: artifactPath=${path}, originalBytes=3000, maxModelBytes=1000, strategy=artifact]`
    expect(result.modelContent).toBe('x'.repeat(1000 - utf8ByteLength(notice)) + notice)
    expect(await readFile(path, 'utf8')).toBe(content)
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'artifact', persistedPath: path, actualBytes: 1000 })
  })

  it('R32 never cuts the notice, even when it alone exceeds the budget', async () => {
    const result = await serializeOutput(input(makeEntry(budget(10, 'truncate')), 'y'.repeat(50)))
    expect(result.modelContent).toBe('\n\n[Tool output truncated by resultBudget: originalBytes=50, maxModelBytes=10, strategy=truncate]')
  })

  it('R35 applies the smaller of a WebSearch-like 20000 model budget and 10000 inline budget', async () => {
    const webSearch: ResultBudget = { maxModelBytes: 20_000, maxInlineBytes: 10_000, strategy: 'truncate', previewDirection: 'head' }
    const entry = makeEntry(webSearch)
    expect(effectiveBudgetBytes(entry)).toBe(10_000)
    expect((await serializeOutput(input(entry, 'w'.repeat(10_000)))).serialization.strategy).toBe('inline')

    const result = await serializeOutput(input(entry, 'w'.repeat(15_000)))
    const notice = '\n\n[Tool output truncated by resultBudget: originalBytes=15000, maxModelBytes=10000, strategy=truncate]'
    expect(result.modelContent).toBe('w'.repeat(9898) + notice)
    expect(result.serialization).toEqual({ truncated: true, originalBytes: 15_000, actualBytes: 10_000, strategy: 'truncate' })
  })

  it('R35 gives a tool that declares no budget the default 100000 bytes, truncate, head', async () => {
    expect(effectiveBudgetBytes(makeEntry())).toBe(100_000)
    expect(DEFAULT_RESULT_BUDGET).toEqual({ maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'truncate', previewDirection: 'head' })
    const result = await serializeOutput(input(makeEntry(), 'd'.repeat(100_001)))
    expect(result.serialization).toMatchObject({ truncated: true, originalBytes: 100_001, actualBytes: 100_000 })
  })

  it.each([
    ['head', '日本語😀'.repeat(11) + '日本', 248],
    ['tail', '語😀' + '日本語😀'.repeat(11), 249],
  ] as const)('R32 cuts multi-byte text from the %s on whole code points within the byte budget', async (direction, kept, bytes) => {
    const notice = '\n\n[Tool output truncated by resultBudget: originalBytes=1300, maxModelBytes=250, strategy=truncate]'
    const result = await serializeOutput(input(makeEntry(budget(250, 'truncate', direction)), '日本語😀'.repeat(100)))
    expect(result.modelContent).toBe(kept + notice)
    expect(result.serialization.actualBytes).toBe(bytes)
  })

  it('R32 keeps a prefix or suffix of the original and stays within the byte budget (property)', async () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
      fc.constantFrom('x', '\n', 'é', '中', '😀'),
    )
    const text = fc.string({ unit, minLength: 1, maxLength: 150 }).filter((s) => s.trim() !== '')
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 110, max: 400 }), fc.constantFrom('head', 'tail'), async (output, bytes, direction) => {
        const result = await serializeOutput(input(makeEntry(budget(bytes, 'truncate', direction)), output))
        const model = result.modelContent as string
        expect(utf8ByteLength(model)).toBeLessThanOrEqual(bytes)
        expect(result.serialization.actualBytes).toBe(utf8ByteLength(model))
        if (!result.serialization.truncated) {
          expect(model).toBe(output)
          return
        }
        const kept = model.slice(0, model.indexOf('\n\n[Tool output truncated by resultBudget: '))
        expect(direction === 'head' ? output.startsWith(kept) : output.endsWith(kept)).toBe(true)
      }),
    )
  })
})

describe('serializeOutput: media blocks and screenshot frames (R35, R36)', () => {
  const png = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 0, 1, 2, 3])
  const frame = (): ModelContentBlock[] => [
    { type: 'text', text: 'Clicked.' },
    { type: 'image', mediaType: 'image/png', data: png.toString('base64') },
    { type: 'text', text: 'coordinates: (10, 20), scale 0.5' },
  ]

  it('R36 saves an image block as an artifact and keeps only a reference', async () => {
    const result = await serializeOutput(input(makeEntry(), frame(), store))
    const blocks = result.modelContent as ModelContentBlock[]
    const image = blocks[1]
    if (image?.type !== 'image') throw new Error('expected an image block second')
    expect(image).not.toHaveProperty('data')
    expect(image.path).toMatch(/\/cli\/artifacts\/sess-1\/call-1-tool-result-[0-9a-f-]{36}\.png$/)
    expect(image.artifactUri).toMatch(/^toolexec-artifact:\/\/sess-1\/tool-result-[0-9a-f-]{36}$/)
    expect(await readFile(image.path ?? '')).toEqual(png)
    expect(blocks).toEqual([frame()[0], { type: 'image', mediaType: 'image/png', artifactUri: image.artifactUri, path: image.path }, frame()[2]])
    expect(result.fullText).toBe('Clicked.\ncoordinates: (10, 20), scale 0.5')
    expect(result.serialization.strategy).toBe('inline')
  })

  it('R36 keeps the image data when there is no artifact store', async () => {
    const result = await serializeOutput(input(makeEntry(), frame()))
    expect(result.modelContent).toEqual(frame())
  })

  it('R36 keeps the image data and records the error when the write fails', async () => {
    const result = await serializeOutput(input(makeEntry(), frame(), await brokenStore()))
    expect(result.modelContent).toEqual(frame())
    expect(result.artifactError).toBeDefined()
  })

  it('R35 keeps frames whole and in order while the other text obeys 256 KiB', async () => {
    const entry = makeEntry(budget(1_000_000, 'truncate'))
    const coordinates = 'c'.repeat(300_000)
    const blocks: ModelContentBlock[] = [
      { type: 'text', text: 'f'.repeat(300_000) },
      { type: 'image', mediaType: 'image/png', artifactUri: 'toolexec-artifact://s/x', path: '/x.png' },
      { type: 'text', text: coordinates },
    ]
    const result = await serializeOutput(input(entry, blocks))
    const notice = '\n\n[Tool output truncated by resultBudget: originalBytes=600001, maxModelBytes=262144, strategy=truncate]'
    expect(SCREENSHOT_TEXT_BUDGET_BYTES).toBe(262_144)
    expect(result.modelContent).toEqual([{ type: 'text', text: 'f'.repeat(262_144 - utf8ByteLength(notice)) }, blocks[1], { type: 'text', text: coordinates }, { type: 'text', text: notice }])
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'truncate', originalBytes: 600_001 })
  })

  it('R35 cuts the other text blocks from the tail together, dropping those that no longer fit', async () => {
    const image: ModelContentBlock = { type: 'image', mediaType: 'image/png', path: '/x.png' }
    const blocks: ModelContentBlock[] = [
      { type: 'text', text: 'a'.repeat(100) },
      { type: 'text', text: 'b'.repeat(100) },
      image,
      { type: 'text', text: 'c'.repeat(10) },
      { type: 'text', text: 'd'.repeat(100) },
    ]
    const result = await serializeOutput(input(makeEntry(budget(250, 'truncate', 'tail')), blocks))
    expect(result.modelContent).toEqual([
      { type: 'text', text: 'b'.repeat(52) },
      image,
      { type: 'text', text: 'c'.repeat(10) },
      { type: 'text', text: 'd'.repeat(100) },
      { type: 'text', text: '\n\n[Tool output truncated by resultBudget: originalBytes=313, maxModelBytes=250, strategy=truncate]' },
    ])
  })
})
