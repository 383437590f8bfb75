/**
 * @module Atomic, confined writes: the bytes go to a temporary file beside the target, whose
 * descriptor is checked to be in the expected directory; the directory's real path is checked
 * again right before the rename, so a symlink swapped in meanwhile cannot send the write
 * outside the workspace. A reader never sees half a file.
 */
import { randomUUID } from 'node:crypto'
import { constants } from 'node:fs'
import { mkdir, open, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { sha256Of } from './file-state.js'
import { assertAllowed, isAllowed, outsideError, realPathOfDescriptor, type PathGuard } from '../workspace.js'

export interface AtomicWriteArgs {
  readonly guard: PathGuard
  /** The absolute path as the input names it. */
  readonly filePath: string
  readonly bytes: Buffer
  /** Permission bits of the file being replaced; a new file gets the umask's default. */
  readonly mode?: number | undefined
}

export interface WrittenFile {
  readonly realPath: string
  readonly size: number
  readonly mtimeMs: number
  readonly sha256: string
}

// O_EXCL: the temporary name is never followed if someone planted a symlink there.
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL
const NEW_FILE_MODE = 0o666

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT'
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory()
  } catch (error) {
    if (isMissing(error)) return false
    throw error
  }
}

/** Creates the missing directories of `dir` one by one, each checked before and after to be inside the guard. */
async function ensureDirectory(guard: PathGuard, dir: string): Promise<void> {
  const missing: string[] = []
  for (let current = dir; !(await isDirectory(current)); current = path.dirname(current)) {
    if (path.dirname(current) === current) break
    missing.push(current)
  }
  for (const next of missing.reverse()) {
    // `dir` is a real location, so `next` is where the directory would be: checked before it exists.
    if (!isAllowed(guard, next)) throw outsideError(guard, next, next)
    await mkdir(next).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error
    })
    const real = await realpath(next)
    if (!isAllowed(guard, real)) throw outsideError(guard, next, real)
  }
}

function temporaryName(target: string): string {
  return `.${path.basename(target)}.${randomUUID().slice(0, 8)}.tmp`
}

async function writeThrough(handle: FileHandle, bytes: Buffer, mode: number | undefined): Promise<{ mtimeMs: number }> {
  await handle.writeFile(bytes)
  if (mode !== undefined) await handle.chmod(mode)
  await handle.datasync()
  return { mtimeMs: (await handle.stat()).mtimeMs }
}

/**
 * Writes `bytes` to the real location of `filePath` (a symlink inside the workspace is
 * written through, not replaced) by temp file + rename in the same directory.
 */
export async function writeFileAtomically(args: AtomicWriteArgs): Promise<WrittenFile> {
  const target = await assertAllowed(args.guard, args.filePath)
  const dir = path.dirname(target)
  await ensureDirectory(args.guard, dir)
  const temp = path.join(dir, temporaryName(target))
  const handle = await open(temp, CREATE_FLAGS, NEW_FILE_MODE)
  let renamed = false
  try {
    const opened = await realPathOfDescriptor(handle.fd, temp)
    if (opened !== temp) throw outsideError(args.guard, args.filePath, opened)
    const { mtimeMs } = await writeThrough(handle, args.bytes, args.mode)
    await handle.close()
    const dirNow = await realpath(dir)
    if (dirNow !== dir) throw outsideError(args.guard, args.filePath, path.join(dirNow, path.basename(target)))
    await rename(temp, target)
    renamed = true
    return { realPath: target, size: args.bytes.length, mtimeMs, sha256: sha256Of(args.bytes) }
  } finally {
    await handle.close().catch(() => undefined)
    if (!renamed) await rm(temp, { force: true }).catch(() => undefined)
  }
}
