/**
 * @module What Write and Edit share: the guarded read of the current file, the atomic write
 * that keeps its format, the read record afterwards, the output that the executor turns into
 * a `file_diff` display (R38), and the approval preview showing the same diff.
 */
import path from 'node:path'
import type { ToolCallContext } from '../../contracts/ports.js'
import type { ApprovalPreparation, InputContext, ToolEntry } from '../../contracts/tool-entry.js'
import { buildFileDiffDisplay, WHOLE_DIFF_LIMITS } from '../../output/file-diff-display.js'
import { realLocation } from '../../paths/locations.js'
import { createPathGuard, FileToolError, type PathGuard } from '../workspace.js'
import { writeFileAtomically } from './atomic-write.js'
import { readCurrentFile, recordRead, requireFreshRead, type CurrentFile } from './file-state.js'
import { decodeText, encodeText, type DecodedText, type TextFormat } from './text-codec.js'

/**
 * The fields createToolResultDisplay reads for `file_diff`: filePath, oldContent, newContent.
 * PostToolUse hooks get it whole; recordFileChange is what is kept after the call.
 */
export interface FileChangeOutput {
  readonly type: 'create' | 'update'
  readonly filePath: string
  /** The text before (without a byte order mark); null when the file was created. */
  readonly oldContent: string | null
  readonly newContent: string
  readonly replacements?: number
}

/** The file a write starts from, checked against what this session read. */
export interface StartingPoint {
  readonly guard: PathGuard
  readonly current: CurrentFile | undefined
  readonly decoded: DecodedText | undefined
}

export async function loadStartingPoint(ctx: ToolCallContext, filePath: string): Promise<StartingPoint> {
  const guard = await createPathGuard(ctx, filePath)
  const current = await readCurrentFile(guard, filePath)
  if (current === undefined) return { guard, current, decoded: undefined }
  requireFreshRead(ctx, filePath, current)
  return { guard, current, decoded: decodeText(current.bytes) }
}

/** Writes `text` in `format` atomically and records the result as read. */
export async function commitText(ctx: ToolCallContext, start: StartingPoint, filePath: string, text: string, format: TextFormat): Promise<FileChangeOutput> {
  refuseLoneSurrogates(text)
  const bytes = encodeText(text, format)
  const written = await writeFileAtomically({ guard: start.guard, filePath, bytes, mode: start.current?.mode })
  recordRead(ctx, { path: written.realPath, mtimeMs: written.mtimeMs, size: written.size, sha256: written.sha256 })
  return {
    type: start.current === undefined ? 'create' : 'update',
    filePath,
    oldContent: start.decoded?.text ?? null,
    newContent: decodeText(bytes).text,
  }
}

const LONE_SURROGATE = /\p{Surrogate}/u

/** UTF-8 has no bytes for half a pair: encoding would put U+FFFD in its place without a word. */
function refuseLoneSurrogates(text: string): void {
  const found = LONE_SURROGATE.exec(text)
  if (found === null) return
  const unit = `\\u${found[0].charCodeAt(0).toString(16)}`
  throw new FileToolError(
    'TOOL_ERR_LONE_SURROGATE',
    `The text to write has an unpaired UTF-16 surrogate (${unit} at character ${found.index}), which UTF-8 cannot store; nothing was written. ` +
      'Send the character whole (both halves of its pair), or leave it out.',
  )
}

export function formatFileChange(output: FileChangeOutput): string {
  if (output.type === 'create') return `File created successfully at: ${output.filePath}`
  if (output.replacements === undefined) return `The file ${output.filePath} has been overwritten successfully.`
  const times = output.replacements === 1 ? '1 replacement' : `${output.replacements} replacements`
  return `The file ${output.filePath} has been updated successfully (${times}).`
}

/**
 * The approval preview: the diff the call would make, for a path inside the workspace only
 * (nothing outside is read before a person approved it). Undefined when it cannot be built.
 */
export async function previewChange(filePath: string, ctx: InputContext, change: (decoded: DecodedText | undefined) => string): Promise<ApprovalPreparation> {
  if (ctx.workspace === undefined) return {}
  try {
    const guard: PathGuard = { roots: [await realLocation(path.resolve(ctx.workspace))], workspace: ctx.workspace }
    const current = await readCurrentFile(guard, filePath)
    const decoded = current === undefined ? undefined : decodeText(current.bytes)
    const shown = shownPath(ctx.workspace, filePath)
    const args = { filePath: shown, oldContent: decoded?.text ?? null, newContent: change(decoded) }
    const display = buildFileDiffDisplay(args)
    // The diff a person may open in full: only when the display had to cut it.
    const wholeDiff = display.truncated ? buildFileDiffDisplay(args, WHOLE_DIFF_LIMITS) : undefined
    return { preview: { title: `${decoded === undefined ? 'Create' : 'Update'} ${shown}`, display, ...(wholeDiff === undefined ? {} : { wholeDiff }) } }
  } catch {
    // An outside path, a missing match: the person is asked without a diff; the handler reports why.
    return {}
  }
}

/** The path as the person reads it: relative to the workspace, where it lies inside. */
function shownPath(workspace: string, filePath: string): string {
  const relative = path.relative(workspace, path.resolve(workspace, filePath))
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? filePath : relative.split(path.sep).join('/')
}

/** What Write and Edit declare alike (appendix A1: serial, scope workspace, 30 s, 100000 B). */
export const FILE_CHANGE_TOOL = {
  readOnly: false,
  destructive: false,
  concurrentSafe: false,
  permission: { sideEffectScope: 'workspace' },
  timeout: { kind: 'deadline', defaultMs: 30_000 },
  resultBudget: { maxInlineBytes: 1_000_000, maxModelBytes: 100_000, strategy: 'truncate', previewDirection: 'head' },
} as const satisfies Partial<ToolEntry>
