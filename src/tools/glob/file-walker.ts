/**
 * @module The file walk under Glob and Grep: files below a root, sorted by path, with the
 * .gitignore rules applied (nested files included) and `.git` never entered. Symlinked files
 * are listed; symlinked directories are not followed.
 *
 * On Linux the walk is pinned: the root is opened and its descriptor's real path checked
 * once, and every directory and file below is opened through its parent's descriptor
 * (`/proc/self/fd/<fd>/<name>`, with O_NOFOLLOW), so a directory renamed or swapped for a
 * symlink during the walk cannot lead it outside. Elsewhere each directory's real path is
 * checked before it is listed, and each file's descriptor when it is opened.
 *
 * Sorted order comes from the walk itself: entries are sorted with directories keyed as
 * `name/`, which makes the depth-first order the lexicographic order of whole paths.
 */
import { closeSync, constants, openSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs'
import path from 'node:path'
import { GUARDED_READ_FLAGS, isAllowed, realPathOfDescriptorSync, type PathGuard } from '../workspace.js'
import { ancestorRules, GITIGNORE, readGitignore, type GitignoreStack } from './gitignore.js'

/** The directory of walked files: one object for all the files of one listing. */
export interface WalkDirectory {
  /** Absolute path. */
  readonly path: string
  /** What a file's name is appended to, to open it: through the pinned directory's descriptor when there is one. */
  readonly openPrefix: string
  /** Posix path relative to the walk's root, '' or ending in '/'. */
  readonly relative: string
}

/** One file of the walk. Its directory descriptor is open only until the walk moves on. */
export interface WalkEntry {
  readonly name: string
  readonly directory: WalkDirectory
  readonly absolute: string
  /** Posix path relative to the walk's root. */
  readonly relative: string
  /** The path to open it by: through the pinned directory's descriptor when there is one. */
  readonly openPath: string
  readonly pinned: boolean
  /** A symlink to a file: its target is checked when opened. */
  readonly link: boolean
}

export interface WalkOptions {
  /** Absolute directory to walk. */
  readonly root: string
  readonly guard: PathGuard
  /** Where the .gitignore rules start: the workspace when the root is inside it, else the root. */
  readonly ignoreBase: string
  /** Whether to enter a directory (posix path relative to the root, its depth); default yes. */
  readonly enter?: ((relativeDir: string, depth: number) => boolean) | undefined
  /** Pin the walk to descriptors; default: wherever /proc allows it. False gives the portable walk. */
  readonly pin?: boolean | undefined
}

const GIT_DIR = '.git'
const PROC_FD = '/proc/self/fd/'
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
const PINNED_FILE_FLAGS = GUARDED_READ_FLAGS | constants.O_NOFOLLOW
const NOT_PINNED = -1

/** Whether descriptors can be reached by path (Linux procfs); probed once. */
const CAN_PIN = ((): boolean => {
  try {
    return statSync(PROC_FD).isDirectory()
  } catch {
    return false
  }
})()

interface Listed {
  readonly name: string
  readonly key: string
  readonly directory: boolean
  readonly link: boolean
}

interface WalkState {
  readonly options: WalkOptions
  readonly ignores: GitignoreStack
  /** The root relative to the ignore base, posix, '' or ending in '/'. */
  readonly rootPrefix: string
}

interface Directory {
  readonly path: string
  readonly fd: number
  readonly relative: string
  readonly depth: number
}

/** A listed directory: how its children are reached, built once per directory. */
interface Listing {
  readonly path: string
  readonly childPrefix: string
}

function posixPrefix(base: string, root: string): string {
  const relative = path.relative(base, root)
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return ''
  return `${relative.split(path.sep).join('/')}/`
}

/** `dir` is absolute and normalized: concatenation is enough (path.join would normalize again, per file). */
function childPath(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name
}

/** How the walk reaches a directory's children: through its descriptor when pinned. */
function listingOf(dir: Directory): Listing {
  if (dir.fd === NOT_PINNED) return { path: dir.path, childPrefix: childPath(dir.path, '') }
  const path = PROC_FD + dir.fd
  return { path, childPrefix: `${path}/` }
}

/** Walks `options.root`; yields files in lexicographic order of their relative paths. */
export function* walkFiles(options: WalkOptions): Generator<WalkEntry, void, undefined> {
  // A base that is not an ancestor of the root gives no ancestor rules and an empty prefix.
  const state: WalkState = { options, ignores: ancestorRules(options.ignoreBase, options.root), rootPrefix: posixPrefix(options.ignoreBase, options.root) }
  const pin = (options.pin ?? true) && CAN_PIN
  const rootFd = pin ? openPinnedRoot(options.guard, options.root) : NOT_PINNED
  if (pin && rootFd === NOT_PINNED) return
  try {
    yield* walkDirectory(state, { path: options.root, fd: rootFd, relative: '', depth: 0 })
  } finally {
    if (rootFd !== NOT_PINNED) closeSync(rootFd)
  }
}

function openPinnedRoot(guard: PathGuard, root: string): number {
  let fd: number
  try {
    fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY)
  } catch {
    return NOT_PINNED
  }
  if (isAllowed(guard, realPathOfDescriptorSync(fd, root))) return fd
  closeSync(fd)
  return NOT_PINNED
}

function* walkDirectory(state: WalkState, dir: Directory): Generator<WalkEntry, void, undefined> {
  if (dir.fd === NOT_PINNED && !stillAllowed(state.options.guard, dir.path)) return
  const listing = listingOf(dir)
  let entries: Dirent[]
  try {
    entries = readdirSync(listing.path, { withFileTypes: true })
  } catch {
    return // Unreadable or gone meanwhile: nothing to list.
  }
  const levels = state.ignores.depth
  if (entries.some((entry) => entry.name === GITIGNORE && entry.isFile())) {
    const content = readGitignore(listing.path)
    if (content !== undefined) state.ignores.push(state.rootPrefix + dir.relative, content)
  }
  const pinned = dir.fd !== NOT_PINNED
  const directory: WalkDirectory = { path: dir.path, openPrefix: listing.childPrefix, relative: dir.relative }
  for (const entry of listSorted(listing.childPrefix, entries)) {
    const relative = dir.relative + entry.name
    if (state.ignores.depth > 0 && state.ignores.isIgnored(state.rootPrefix + relative, entry.directory)) continue
    const absolute = childPath(dir.path, entry.name)
    if (!entry.directory) {
      yield { name: entry.name, directory, absolute, relative, openPath: listing.childPrefix + entry.name, pinned, link: entry.link }
      continue
    }
    if (state.options.enter?.(relative, dir.depth + 1) === false) continue
    yield* walkChild(state, dir, { path: absolute, relative: `${relative}/`, name: entry.name })
  }
  state.ignores.truncate(levels)
}

function* walkChild(state: WalkState, parent: Directory, child: { path: string; relative: string; name: string }): Generator<WalkEntry, void, undefined> {
  const depth = parent.depth + 1
  if (parent.fd === NOT_PINNED) {
    yield* walkDirectory(state, { path: child.path, fd: NOT_PINNED, relative: child.relative, depth })
    return
  }
  let fd: number
  try {
    fd = openSync(`${PROC_FD}${parent.fd}/${child.name}`, DIRECTORY_FLAGS)
  } catch {
    return // Gone, or swapped for a symlink: not followed.
  }
  try {
    yield* walkDirectory(state, { path: child.path, fd, relative: child.relative, depth })
  } finally {
    closeSync(fd)
  }
}

function stillAllowed(guard: PathGuard, dir: string): boolean {
  try {
    return isAllowed(guard, realpathSync.native(dir))
  } catch {
    return false
  }
}

/** Directories and files (symlinks to files included), `.git` left out, in path order. */
function listSorted(childPrefix: string, entries: readonly Dirent[]): Listed[] {
  const listed: Listed[] = []
  for (const entry of entries) {
    if (entry.name === GIT_DIR) continue
    const directory = entry.isDirectory()
    const link = entry.isSymbolicLink() && isFileBehindLink(childPrefix + entry.name)
    if (directory || link || entry.isFile()) {
      listed.push({ name: entry.name, key: directory ? `${entry.name}/` : entry.name, directory, link })
    }
  }
  return listed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

function isFileBehindLink(link: string): boolean {
  try {
    return statSync(link).isFile()
  } catch {
    return false
  }
}

/** What opening a walked file needs. */
export type OpenableFile = Pick<WalkEntry, 'absolute' | 'openPath' | 'pinned' | 'link'>

/**
 * Opens a walked file for reading, before the walk moves on; undefined when it cannot be
 * opened or lies outside the guard. Pinned and not a symlink: opened through its directory's
 * descriptor without following a link, so it is where the walk found it. Otherwise the
 * descriptor's real path is checked.
 */
export function openWalkedFile(entry: OpenableFile, guard: PathGuard): number | undefined {
  const trusted = entry.pinned && !entry.link
  let fd: number
  try {
    fd = openSync(entry.openPath, trusted ? PINNED_FILE_FLAGS : GUARDED_READ_FLAGS)
  } catch {
    return undefined
  }
  if (trusted) return fd
  try {
    if (isAllowed(guard, realPathOfDescriptorSync(fd, entry.absolute))) return fd
  } catch {
    // Cannot tell where it is: not read.
  }
  closeSync(fd)
  return undefined
}
