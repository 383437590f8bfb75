/**
 * @module Workspace confinement for the file tools. Every path is resolved against the
 * session's workspace; `..`, absolute paths elsewhere and symlinks that lead outside are
 * outside. A handler refuses an outside path unless a person approved that very call (then
 * the approved literal path, and what it resolves to, is allowed too). Checks are made on
 * what was opened, not on the name, so a symlink swapped in after a check cannot redirect a
 * read or a write.
 */
import { constants, readlinkSync, realpathSync } from 'node:fs'
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import type { ToolCallContext } from '../contracts/ports.js'
import type { InputContext, ToolBusinessFailure } from '../contracts/tool-entry.js'
import { isWithin, realLocation } from '../paths/locations.js'

export const OUTSIDE_WORKSPACE = 'TOOL_ERR_OUTSIDE_WORKSPACE'
export const NO_WORKSPACE = 'TOOL_ERR_NO_WORKSPACE'

/** A failure the model can act on; file tools turn it into `<tool_use_error>` (A4). */
export class FileToolError extends Error {
  readonly code: string

  constructor(code: string, message: string) {
    super(message)
    this.name = 'FileToolError'
    this.code = code
  }
}

/** Where a call may go: real paths of the workspace and of what a person approved. */
export interface PathGuard {
  readonly roots: readonly string[]
  readonly workspace: string | undefined
}

export interface OpenedFile {
  readonly handle: FileHandle
  /** The real path of the opened descriptor. */
  readonly realPath: string
}

/** An input path whose real location lies outside the workspace. */
export interface OutsidePath {
  readonly path: string
  readonly realPath: string
}

const PATH_FIELDS = ['file_path', 'path'] as const
// O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
export const GUARDED_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY
const DELETED_SUFFIX = ' (deleted)'

/** R13: the absolute path a tool works on; a relative one is taken from the workspace. */
export function resolveToolPath(filePath: string, workspace: string | undefined): string {
  if (path.isAbsolute(filePath)) return path.resolve(filePath)
  return workspace === undefined ? filePath : path.resolve(workspace, filePath)
}

/** resolveInput for tools with a `file_path`: approval, hooks and handler see one absolute path. */
export function withAbsoluteFilePath<I extends { readonly file_path: string }>(input: I, ctx: InputContext): I {
  return { ...input, file_path: resolveToolPath(input.file_path, ctx.workspace) }
}

/**
 * The guard of one call. `namedPath` is the literal path of the input: when a person
 * approved this call, that path (and what it resolves to now) is allowed as well.
 */
export async function createPathGuard(ctx: ToolCallContext, namedPath: string): Promise<PathGuard> {
  const roots: string[] = []
  if (ctx.workspace !== undefined) roots.push(await realLocation(path.resolve(ctx.workspace)))
  const approved = await approvedRoot(ctx, namedPath)
  if (approved !== undefined) roots.push(approved)
  const memoryDir = ctx.services.memoryDir
  // A9: Markdown memory files are written without asking, wherever the memory directory is.
  if (memoryDir !== undefined && isMemoryMarkdown(memoryDir, namedPath)) roots.push(await realLocation(path.resolve(memoryDir)))
  if (roots.length === 0) {
    throw new FileToolError(NO_WORKSPACE, 'No workspace is set for this session; file tools only work inside a workspace.')
  }
  return { roots, workspace: ctx.workspace }
}

/**
 * What a permission adds: where the outside path led when it was given (asked, granted or
 * allowed by a rule), so that a symlink swapped in afterwards leads nowhere new. Without that
 * record (another permission service), after an approval: a path outside the workspace by
 * name and what it resolves to now.
 */
async function approvedRoot(ctx: ToolCallContext, namedPath: string): Promise<string | undefined> {
  if (ctx.approvedTarget !== undefined) return ctx.approvedTarget
  if (ctx.permission !== 'approved' || !path.isAbsolute(namedPath)) return undefined
  if (ctx.workspace !== undefined && isWithin(path.resolve(ctx.workspace), path.resolve(namedPath))) return undefined
  return realLocation(namedPath)
}

function isMemoryMarkdown(memoryDir: string, namedPath: string): boolean {
  return path.isAbsolute(namedPath) && namedPath.toLowerCase().endsWith('.md') && isWithin(path.resolve(memoryDir), path.resolve(namedPath))
}

export function isAllowed(guard: PathGuard, realPath: string): boolean {
  return guard.roots.some((root) => isWithin(root, realPath))
}

export function outsideError(guard: PathGuard, named: string, realPath: string): FileToolError {
  const resolves = realPath === named ? '' : ` (it resolves to ${realPath})`
  const where = guard.workspace === undefined ? 'the workspace' : `the workspace ${guard.workspace}`
  return new FileToolError(OUTSIDE_WORKSPACE, `Access to ${named} was refused: it is outside ${where}${resolves}. Work on files inside the workspace, or ask the user to approve this path.`)
}

/** The real location of `absolute`, refused when it lies outside the guard's roots. */
export async function assertAllowed(guard: PathGuard, absolute: string): Promise<string> {
  if (!path.isAbsolute(absolute)) throw outsideError(guard, absolute, absolute)
  const real = await realLocation(absolute)
  if (!isAllowed(guard, real)) throw outsideError(guard, absolute, real)
  return real
}

function descriptorLink(fd: number): string {
  return `/proc/self/fd/${fd}`
}

function usableLink(target: string): boolean {
  return path.isAbsolute(target) && !target.endsWith(DELETED_SUFFIX)
}

/** The real path of an open descriptor (Linux /proc), else the realpath of the name it was opened by. */
export async function realPathOfDescriptor(fd: number, openedAs: string): Promise<string> {
  try {
    const target = await readlink(descriptorLink(fd))
    if (usableLink(target)) return target
  } catch {
    // No /proc (not Linux): the name's realpath is the best remaining check.
  }
  return realpath(openedAs)
}

export function realPathOfDescriptorSync(fd: number, openedAs: string): string {
  try {
    const target = readlinkSync(descriptorLink(fd))
    if (usableLink(target)) return target
  } catch {
    // As above.
  }
  return realpathSync.native(openedAs)
}

/**
 * Opens `absolute` for reading and checks the descriptor: whatever a racing process swapped
 * in, only a file inside the guard is ever read. The name is checked first too, so that an
 * outside file is not even opened in the usual case.
 */
export async function openForReading(guard: PathGuard, absolute: string): Promise<OpenedFile> {
  await assertAllowed(guard, absolute)
  const handle = await open(absolute, GUARDED_READ_FLAGS)
  try {
    const realPath = await realPathOfDescriptor(handle.fd, absolute)
    if (!isAllowed(guard, realPath)) throw outsideError(guard, absolute, realPath)
    return { handle, realPath }
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * For the permission layer: the first `file_path` or `path` of a tool input whose real
 * location is outside the workspace (every path is, without a workspace); undefined if none.
 * @example await findOutsidePath({ file_path: '../x' }, '/work/ws') // { path: '/work/x', realPath: '/work/x' }
 */
export async function findOutsidePath(input: unknown, workspace: string | undefined): Promise<OutsidePath | undefined> {
  if (typeof input !== 'object' || input === null) return undefined
  const root = workspace === undefined ? undefined : await realLocation(path.resolve(workspace))
  for (const field of PATH_FIELDS) {
    const value = (input as Readonly<Record<string, unknown>>)[field]
    if (typeof value !== 'string' || value === '') continue
    const named = resolveToolPath(value, workspace)
    const real = path.isAbsolute(named) ? await realLocation(named) : named
    if (root === undefined || !isWithin(root, real)) return { path: named, realPath: real }
  }
  return undefined
}

/** How a path is shown to the model: relative to the workspace when inside it, else absolute. */
export function displayPath(absolute: string, workspace: string | undefined): string {
  if (workspace === undefined) return absolute
  const root = path.resolve(workspace)
  if (absolute === root) return '.'
  return isWithin(root, absolute) ? absolute.slice(root.length + (root.endsWith(path.sep) ? 0 : 1)) : absolute
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EEXIST: 'it already exists',
}

/**
 * Runs a file tool's work. A FileToolError, or a file-system error with a known errno,
 * becomes the business failure the model reads as `<tool_use_error>`; anything else throws.
 */
export async function asToolFailure<T>(work: () => Promise<T>): Promise<T | ToolBusinessFailure> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof Error && error.name === 'FileToolError') {
      return { result: false, errorCode: (error as FileToolError).code, message: error.message }
    }
    const fsError = error as { code?: unknown; path?: unknown; syscall?: unknown }
    const text = typeof fsError.code === 'string' ? ERRNO_TEXT[fsError.code] : undefined
    if (text === undefined) throw error
    const where = typeof fsError.path === 'string' ? ` ${fsError.path}` : ''
    const syscall = typeof fsError.syscall === 'string' ? fsError.syscall : 'access'
    return { result: false, errorCode: `TOOL_ERR_FS_${fsError.code as string}`, message: `Cannot ${syscall}${where}: ${text}.` }
  }
}
