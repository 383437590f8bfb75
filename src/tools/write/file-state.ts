/**
 * @module No blind writes: a file that exists may be overwritten or edited only when this
 * session has read it and it has not changed on disk since. Creating a new file needs no read.
 */
import { createHash } from 'node:crypto'
import type { ToolCallContext } from '../../contracts/ports.js'
import type { FileReadRecord, FileStateStore } from '../services.js'
import { FileToolError, openForReading, type PathGuard } from '../workspace.js'

/** A file as it is on disk right before a write. */
export interface CurrentFile {
  readonly realPath: string
  readonly bytes: Buffer
  readonly size: number
  readonly mtimeMs: number
  /** Permission bits, kept by the write. */
  readonly mode: number
  readonly sha256: string
}

/** Edits hold the whole file in memory twice; beyond this Bash (sed) is the better tool. */
export const MAX_EDITABLE_BYTES = 64 * 1024 * 1024

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

function fileStateOf(ctx: ToolCallContext): FileStateStore {
  const store = ctx.services.fileState
  if (store === undefined) throw new Error('File tools need a file state store (services.fileState), and none is configured')
  return store
}

export function recordRead(ctx: ToolCallContext, record: FileReadRecord): void {
  ctx.services.fileState?.recordRead(ctx.sessionId, record)
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT'
}

/** The file at `absolute` through a checked descriptor, or undefined when there is none. */
export async function readCurrentFile(guard: PathGuard, absolute: string): Promise<CurrentFile | undefined> {
  let opened
  try {
    opened = await openForReading(guard, absolute)
  } catch (error) {
    if (isMissing(error)) return undefined
    throw error
  }
  const { handle, realPath } = opened
  try {
    const stat = await handle.stat()
    if (stat.isDirectory()) throw new FileToolError('TOOL_ERR_IS_DIRECTORY', `${absolute} is a directory, not a file.`)
    if (!stat.isFile()) throw new FileToolError('TOOL_ERR_NOT_A_FILE', `${absolute} is not a regular file.`)
    if (stat.size > MAX_EDITABLE_BYTES) {
      throw new FileToolError('TOOL_ERR_FILE_TOO_LARGE', `${absolute} has ${stat.size} bytes, more than the ${MAX_EDITABLE_BYTES} bytes Write and Edit handle; change it with Bash instead.`)
    }
    const bytes = await handle.readFile()
    return { realPath, bytes, size: bytes.length, mtimeMs: stat.mtimeMs, mode: stat.mode & 0o7777, sha256: sha256Of(bytes) }
  } finally {
    await handle.close()
  }
}

/**
 * Refuses a write over `current` unless this session read it and its bytes are the ones
 * read. A changed mtime with the same bytes (a touch) is not a change.
 */
export function requireFreshRead(ctx: ToolCallContext, filePath: string, current: CurrentFile): void {
  const record = fileStateOf(ctx).lastRead(ctx.sessionId, current.realPath)
  if (record === undefined) {
    throw new FileToolError('TOOL_ERR_FILE_NOT_READ', `${filePath} exists and has not been read in this session. Read it first, then write or edit it.`)
  }
  if (record.size !== current.size || record.sha256 !== current.sha256) {
    throw new FileToolError('TOOL_ERR_FILE_CHANGED', `${filePath} has changed on disk since it was last read (${record.size} bytes then, ${current.size} now). Read it again before writing to it.`)
  }
}
