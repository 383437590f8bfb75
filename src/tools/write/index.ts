/**
 * @module Write {file_path, content}: creates or overwrites a file (SPEC A1: F/F/F/workspace,
 * so serial; 1000000 inline / 100000 model bytes, truncate, head; 30000 ms). An existing file
 * must have been read first and be unchanged since; its line endings and byte order mark are
 * kept. The write is atomic and confined to the workspace.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type ToolEntry } from '../../contracts/tool-entry.js'
import { fileDiffDisplay } from '../../output/file-diff-display.js'
import { asToolFailure, withAbsoluteFilePath } from '../workspace.js'
import { commitText, FILE_CHANGE_TOOL, formatFileChange, loadStartingPoint, previewChange, type FileChangeOutput } from './file-change.js'
import { recordFileChange } from './recorded-change.js'
import { NEW_FILE_FORMAT } from './text-codec.js'

export const WRITE_TOOL_NAME = 'Write'

const WriteInputSchema = Type.Object(
  {
    file_path: Type.String({ minLength: 1, description: 'The file to write: absolute, or relative to the workspace' }),
    content: Type.String({ description: 'The whole new content of the file' }),
  },
  { additionalProperties: false },
)
export type WriteInput = Static<typeof WriteInputSchema>

const DESCRIPTION =
  'Writes `content` to `file_path`, creating the file (and missing directories) or replacing it. ' +
  'An existing file must have been read with Read first, and must not have changed since. ' +
  'Prefer Edit for changing part of an existing file.'

async function writeFile(input: WriteInput, ctx: ToolCallContext): Promise<FileChangeOutput> {
  const start = await loadStartingPoint(ctx, input.file_path)
  return commitText(ctx, start, input.file_path, input.content, start.decoded?.format ?? NEW_FILE_FORMAT)
}

/** @example registry.register(createWriteTool()) */
export function createWriteTool(): ToolEntry<WriteInput, FileChangeOutput> {
  return defineTool({
    name: WRITE_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: WriteInputSchema,
    ...FILE_CHANGE_TOOL,
    resolveInput: withAbsoluteFilePath,
    prepareApproval: (input, ctx) => previewChange(input.file_path, ctx, () => input.content),
    handler: (input, ctx) => asToolFailure(() => writeFile(input, ctx)),
    formatModelContent: formatFileChange,
    recordedOutput: recordFileChange,
    accessTarget: (input) => ({ kind: 'file', access: 'write', path: input.file_path }),
    buildDisplay: ({ output }) => fileDiffDisplay(output),
  })
}
