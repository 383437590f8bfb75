/**
 * @module Edit {file_path, old_string, new_string, replace_all?}: replaces exact text in a
 * file (SPEC A1: F/F/F/workspace, so serial; 1000000 inline / 100000 model bytes, truncate,
 * head; 30000 ms). The file must have been read first and be unchanged since; zero or several
 * matches (without replace_all) are refused; line endings and byte order mark are kept and the
 * write is atomic and confined to the workspace.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type ToolEntry } from '../../contracts/tool-entry.js'
import { fileDiffDisplay } from '../../output/file-diff-display.js'
import { imageTypeOf, looksBinary } from '../read/file-kind.js'
import { asToolFailure, FileToolError, withAbsoluteFilePath } from '../workspace.js'
import { commitText, FILE_CHANGE_TOOL, formatFileChange, loadStartingPoint, previewChange, type FileChangeOutput } from '../write/file-change.js'
import { recordFileChange } from '../write/recorded-change.js'
import { NEW_FILE_FORMAT } from '../write/text-codec.js'
import { applyEdit, editOfMissingFile } from './apply-edit.js'

export const EDIT_TOOL_NAME = 'Edit'

const EditInputSchema = Type.Object(
  {
    file_path: Type.String({ minLength: 1, description: 'The file to edit: absolute, or relative to the workspace' }),
    old_string: Type.String({ description: 'The exact text to replace (empty to create a new file)' }),
    new_string: Type.String({ description: 'The text to put in its place' }),
    replace_all: Type.Optional(Type.Boolean({ description: 'Replace every occurrence (default false: old_string must be unique)' })),
  },
  { additionalProperties: false },
)
export type EditInput = Static<typeof EditInputSchema>

const DESCRIPTION =
  'Replaces `old_string` with `new_string` in `file_path`. The file must have been read with Read first. ' +
  'old_string must match the file exactly (whitespace included) and be unique unless replace_all is true; ' +
  'give it without the line-number prefix Read shows.'

/** Text edits would mangle an image or a binary file (invalid UTF-8 becomes U+FFFD). */
function refuseBinary(filePath: string, bytes: Buffer): void {
  if (imageTypeOf(bytes) === undefined && !looksBinary(bytes)) return
  throw new FileToolError('TOOL_ERR_BINARY_FILE', `${filePath} is a binary file; Edit changes text files only. Use Write to replace it whole.`)
}

async function editFile(input: EditInput, ctx: ToolCallContext): Promise<FileChangeOutput> {
  const start = await loadStartingPoint(ctx, input.file_path)
  if (start.current !== undefined) refuseBinary(input.file_path, start.current.bytes)
  const edit = start.decoded === undefined ? editOfMissingFile(input.file_path, input) : applyEdit(input.file_path, start.decoded, input)
  const output = await commitText(ctx, start, input.file_path, edit.text, start.decoded?.format ?? NEW_FILE_FORMAT)
  return { ...output, replacements: edit.replacements }
}

/** @example registry.register(createEditTool()) */
export function createEditTool(): ToolEntry<EditInput, FileChangeOutput> {
  return defineTool({
    name: EDIT_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: EditInputSchema,
    ...FILE_CHANGE_TOOL,
    resolveInput: withAbsoluteFilePath,
    prepareApproval: (input, ctx) =>
      previewChange(input.file_path, ctx, (decoded) => (decoded === undefined ? editOfMissingFile(input.file_path, input).text : applyEdit(input.file_path, decoded, input).text)),
    handler: (input, ctx) => asToolFailure(() => editFile(input, ctx)),
    formatModelContent: formatFileChange,
    recordedOutput: recordFileChange,
    accessTarget: (input) => ({ kind: 'file', access: 'write', path: input.file_path }),
    buildDisplay: ({ output }) => fileDiffDisplay(output),
  })
}
