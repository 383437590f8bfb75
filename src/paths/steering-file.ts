/**
 * @module Reading a small file that a workspace controls and the server obeys (a steering
 * file: `.toolexec/config.json`, a `.gitignore`), so that it can neither hold the server nor
 * show it a file from elsewhere. The file is opened without following a symlink and without
 * waiting (O_NOFOLLOW | O_NONBLOCK: a FIFO opens at once, and is then refused), must be a
 * regular file no larger than a cap and, when a root is given, must lie inside the root's
 * real path (a directory on the way that is a symlink out is refused). A refusal says what
 * the file is, never what it holds.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { isWithin } from './locations.js'

export type SteeringRead = { readonly kind: 'missing' } | { readonly kind: 'text'; readonly text: string } | { readonly kind: 'refused'; readonly problem: string }

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY
const MISSING: SteeringRead = { kind: 'missing' }

const refused = (problem: string): SteeringRead => ({ kind: 'refused', problem })
const tooLarge = (maxBytes: number): SteeringRead => refused(`it is larger than ${maxBytes} bytes`)

/** One byte more than the size seen: a file that grew after the stat fills it, and is refused. */
const bufferFor = (size: number): Buffer => Buffer.alloc(size + 1)

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : 'unknown error'
}

function openFailure(error: unknown): SteeringRead {
  const code = codeOf(error)
  if (code === 'ENOENT' || code === 'ENOTDIR') return MISSING
  // O_NOFOLLOW on a symlink: ELOOP on Linux, EMLINK on some BSDs.
  if (code === 'ELOOP' || code === 'EMLINK') return refused('it is a symbolic link')
  return refused(`it cannot be opened (${code})`)
}

/** Where an open descriptor really is (Linux /proc), else the realpath of its name. */
async function realPathOf(handle: FileHandle, file: string): Promise<string> {
  try {
    const target = await readlink(`/proc/self/fd/${handle.fd}`)
    if (path.isAbsolute(target)) return target
  } catch {
    // No /proc: the name's realpath is the best remaining check.
  }
  return realpath(file)
}

/** `relative` below `root`, read as UTF-8 when it is a regular file inside root's real path of at most `maxBytes`. */
export async function readSteeringFile(root: string, relative: string, maxBytes: number): Promise<SteeringRead> {
  const file = path.join(root, relative)
  let handle: FileHandle
  try {
    handle = await open(file, FLAGS)
  } catch (error) {
    return openFailure(error)
  }
  try {
    const [real, realRoot] = await Promise.all([realPathOf(handle, file), realpath(root)])
    if (!isWithin(realRoot, real)) return refused('it leads outside the workspace')
    const stat = await handle.stat()
    if (!stat.isFile()) return refused('it is not a regular file')
    if (stat.size > maxBytes) return tooLarge(maxBytes)
    const buffer = bufferFor(stat.size)
    let length = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
      length += bytesRead
      if (bytesRead === 0 || length === buffer.length) break
    }
    return length > stat.size ? refused('it changed while it was read') : { kind: 'text', text: buffer.toString('utf8', 0, length) }
  } catch (error) {
    return refused(`it cannot be read (${codeOf(error)})`)
  } finally {
    await handle.close()
  }
}

/**
 * The same without the root check, synchronously, for a walk that already holds the file's
 * directory (by descriptor): the text, or undefined for anything else.
 */
export function readRegularFileSync(file: string, maxBytes: number): string | undefined {
  let fd: number
  try {
    fd = openSync(file, FLAGS)
  } catch {
    return undefined
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > maxBytes) return undefined
    const buffer = bufferFor(stat.size)
    let length = 0
    for (;;) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, length)
      length += bytesRead
      if (bytesRead === 0 || length === buffer.length) break
    }
    return length > stat.size ? undefined : buffer.toString('utf8', 0, length)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}
