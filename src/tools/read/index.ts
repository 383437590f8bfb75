/**
 * @module Read {file_path, offset?, limit?}: a text file with line numbers, or a png, jpeg,
 * gif or webp image as an image block that the executor saves as an artifact (R36). SPEC A1:
 * T/F/T/none (read-only, parallel); 262144 bytes, truncate, head; 30000 ms, no override.
 * Binary and over-large files are refused with a text that says how to read a part. Every
 * successful read is recorded for the no-blind-writes rule of Write and Edit.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { ModelContentBlock } from '../../contracts/model-content.js'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type ToolEntry } from '../../contracts/tool-entry.js'
import { formatBytesBinary } from '../../output/bytes.js'
import { asToolFailure, createPathGuard, FileToolError, openForReading, withAbsoluteFilePath, type OpenedFile } from '../workspace.js'
import { recordRead, sha256Of } from '../write/file-state.js'
import { imageTypeOf, looksBinary, SNIFF_BYTES, type ImageMediaType } from './file-kind.js'
import { MAX_LINE_CHARS, readTextWindow, type LineWindow, type TextWindow } from './text-window.js'

export const READ_TOOL_NAME = 'Read'
/** A whole-file read beyond this needs offset or limit (Read's result budget, A1). */
export const MAX_WHOLE_READ_BYTES = 262_144
export const DEFAULT_LINE_LIMIT = 2000
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024

const ReadInputSchema = Type.Object(
  {
    file_path: Type.String({ minLength: 1, description: 'The file to read: absolute, or relative to the workspace' }),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'The 1-based line to start from' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: `How many lines to read (default ${DEFAULT_LINE_LIMIT})` })),
  },
  { additionalProperties: false },
)
export type ReadInput = Static<typeof ReadInputSchema>
export type ReadOutput = string | ModelContentBlock[]

const DESCRIPTION =
  'Reads a file from the workspace. Text comes back cat -n style (line number, tab, line), ' +
  `at most ${DEFAULT_LINE_LIMIT} lines from \`offset\` (1-based) unless \`limit\` says otherwise; ` +
  `lines longer than ${MAX_LINE_CHARS} characters are cut. png, jpeg, gif and webp images come back as images. ` +
  'Read a file before you Write or Edit it.'

async function openExisting(ctx: ToolCallContext, filePath: string): Promise<OpenedFile> {
  const guard = await createPathGuard(ctx, filePath)
  try {
    return await openForReading(guard, filePath)
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error
    throw new FileToolError('TOOL_ERR_FILE_NOT_FOUND', `File does not exist: ${filePath}. Use Glob to find the right path.`)
  }
}

async function readFile(input: ReadInput, ctx: ToolCallContext): Promise<ReadOutput> {
  const opened = await openExisting(ctx, input.file_path)
  try {
    return await readOpened(input, ctx, opened)
  } finally {
    await opened.handle.close()
  }
}

async function readOpened(input: ReadInput, ctx: ToolCallContext, opened: OpenedFile): Promise<ReadOutput> {
  const stat = await opened.handle.stat()
  if (stat.isDirectory()) throw new FileToolError('TOOL_ERR_IS_DIRECTORY', `${input.file_path} is a directory, not a file. Use Glob to list its files.`)
  if (!stat.isFile()) throw new FileToolError('TOOL_ERR_NOT_A_FILE', `${input.file_path} is not a regular file.`)
  const head = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size))
  await opened.handle.read(head, 0, head.length, 0)
  const image = imageTypeOf(head)
  if (image !== undefined) return readImage(input.file_path, ctx, opened, image, stat.mtimeMs)
  if (looksBinary(head)) throw binaryFile(input.file_path, stat.size)
  if (stat.size > MAX_WHOLE_READ_BYTES && input.offset === undefined && input.limit === undefined) {
    throw tooLarge(input.file_path, stat.size)
  }
  const window: LineWindow = { offset: Math.max(1, input.offset ?? 1), limit: input.limit ?? DEFAULT_LINE_LIMIT }
  const text = await readTextWindow(opened.handle, window, ctx.signal)
  if (window.offset > 1 && window.offset > text.totalLines) {
    throw new FileToolError('TOOL_ERR_OFFSET_PAST_END', `offset ${window.offset} is past the end of ${input.file_path}, which has ${text.totalLines} lines.`)
  }
  recordRead(ctx, { path: opened.realPath, mtimeMs: stat.mtimeMs, size: text.size, sha256: text.sha256 })
  return formatTextWindow(input.file_path, text)
}

async function readImage(filePath: string, ctx: ToolCallContext, opened: OpenedFile, mediaType: ImageMediaType, mtimeMs: number): Promise<ModelContentBlock[]> {
  const bytes = await opened.handle.readFile()
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new FileToolError('TOOL_ERR_IMAGE_TOO_LARGE', `${filePath} is a ${formatBytesBinary(bytes.length)} image; Read shows images up to ${formatBytesBinary(MAX_IMAGE_BYTES)}.`)
  }
  recordRead(ctx, { path: opened.realPath, mtimeMs, size: bytes.length, sha256: sha256Of(bytes) })
  return [
    { type: 'text', text: `Image ${filePath} (${mediaType}, ${formatBytesBinary(bytes.length)})` },
    { type: 'image', mediaType, data: bytes.toString('base64') },
  ]
}

function binaryFile(filePath: string, size: number): FileToolError {
  return new FileToolError(
    'TOOL_ERR_BINARY_FILE',
    `${filePath} is a binary file (${size} bytes) and cannot be shown as text; Read shows text files and png, jpeg, gif and webp images. ` +
      `To look at a part of it, use Bash, for example: xxd -s 0 -l 512 '${filePath}'`,
  )
}

function tooLarge(filePath: string, size: number): FileToolError {
  return new FileToolError(
    'TOOL_ERR_FILE_TOO_LARGE',
    `${filePath} has ${size} bytes, more than the ${MAX_WHOLE_READ_BYTES} bytes Read returns at once. ` +
      `Read a part of it with offset and limit (for example offset: 1, limit: ${DEFAULT_LINE_LIMIT}), or search it with Grep.`,
  )
}

/** The numbered lines, and a note saying how to read on when the file goes further. */
export function formatTextWindow(filePath: string, text: TextWindow): string {
  if (text.totalLines === 0) return `${filePath} is empty (0 lines).`
  const body = text.lines.join('\n')
  if (text.lastLine >= text.totalLines && !text.stoppedByBytes) return body
  const shown = `Showing lines ${text.firstLine}-${text.lastLine} of ${text.totalLines}`
  const why = text.stoppedByBytes ? '; the output stopped at its size limit' : ''
  const smaller = text.stoppedByBytes ? ' and a smaller limit' : ''
  return `${body}\n\n[${shown}${why}. To read more, call Read with offset: ${text.lastLine + 1}${smaller}.]`
}

/** @example registry.register(createReadTool()) */
export function createReadTool(): ToolEntry<ReadInput, ReadOutput> {
  return defineTool({
    name: READ_TOOL_NAME,
    accessTarget: (input) => ({ kind: 'file', access: 'read', path: input.file_path }),
    description: DESCRIPTION,
    inputSchema: ReadInputSchema,
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    timeout: { kind: 'deadline', defaultMs: 30_000, allowCallOverride: false },
    resultBudget: { maxInlineBytes: MAX_WHOLE_READ_BYTES, maxModelBytes: MAX_WHOLE_READ_BYTES, strategy: 'truncate', previewDirection: 'head' },
    resolveInput: withAbsoluteFilePath,
    handler: (input, ctx) => asToolFailure(() => readFile(input, ctx)),
  })
}
