/**
 * @module The file walk under Glob and Grep: files below a root, sorted by path, with the
 * .gitignore rules applied (nested files included) and `.git` never entered. Symlinked files
 * are listed; symlinked directories are not followed, and a directory whose real path has
 * left the guard (a swap during the walk) is skipped.
 *
 * Sorted order comes from the walk itself: entries are sorted with directories keyed as
 * `name/`, which makes the depth-first order the lexicographic order of whole paths.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs'
import path from 'node:path'
import { isAllowed, type PathGuard } from '../workspace.js'
import { ancestorRules, GITIGNORE, readGitignore, type GitignoreStack } from './gitignore.js'

export interface WalkEntry {
  readonly absolute: string
  /** Posix path relative to the walk's root. */
  readonly relative: string
}

export interface WalkOptions {
  /** Absolute directory to walk. */
  readonly root: string
  readonly guard: PathGuard
  /** Where the .gitignore rules start: the workspace when the root is inside it, else the root. */
  readonly ignoreBase: string
  /** Whether to enter a directory (posix path relative to the root, its depth); default yes. */
  readonly enter?: ((relativeDir: string, depth: number) => boolean) | undefined
}

const GIT_DIR = '.git'

interface Listed {
  readonly name: string
  readonly key: string
  readonly directory: boolean
}

interface WalkState {
  readonly options: WalkOptions
  readonly ignores: GitignoreStack
  /** The root relative to the ignore base, posix, '' or ending in '/'. */
  readonly rootPrefix: string
}

function posixPrefix(base: string, root: string): string {
  const relative = path.relative(base, root)
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return ''
  return `${relative.split(path.sep).join('/')}/`
}

/** Walks `options.root`; yields files in lexicographic order of their relative paths. */
export function* walkFiles(options: WalkOptions): Generator<WalkEntry, void, undefined> {
  // A base that is not an ancestor of the root gives no ancestor rules and an empty prefix.
  const state: WalkState = { options, ignores: ancestorRules(options.ignoreBase, options.root), rootPrefix: posixPrefix(options.ignoreBase, options.root) }
  yield* walkDirectory(state, options.root, '', 0)
}

function* walkDirectory(state: WalkState, dir: string, relativeDir: string, depth: number): Generator<WalkEntry, void, undefined> {
  if (!stillAllowed(state.options.guard, dir)) return
  let entries: Dirent[]
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return // Unreadable or gone meanwhile: nothing to list.
  }
  const levels = state.ignores.depth
  if (entries.some((entry) => entry.name === GITIGNORE && entry.isFile())) {
    const content = readGitignore(dir)
    if (content !== undefined) state.ignores.push(state.rootPrefix + relativeDir, content)
  }
  for (const entry of listSorted(dir, entries)) {
    const relative = relativeDir + entry.name
    if (state.ignores.isIgnored(state.rootPrefix + relative, entry.directory)) continue
    const absolute = path.join(dir, entry.name)
    if (!entry.directory) {
      yield { absolute, relative }
      continue
    }
    if (state.options.enter?.(relative, depth + 1) === false) continue
    yield* walkDirectory(state, absolute, `${relative}/`, depth + 1)
  }
  state.ignores.truncate(levels)
}

function stillAllowed(guard: PathGuard, dir: string): boolean {
  try {
    return isAllowed(guard, realpathSync.native(dir))
  } catch {
    return false
  }
}

/** Directories and files (symlinks to files included), `.git` left out, in path order. */
function listSorted(dir: string, entries: readonly Dirent[]): Listed[] {
  const listed: Listed[] = []
  for (const entry of entries) {
    if (entry.name === GIT_DIR) continue
    const directory = entry.isDirectory()
    if (directory || entry.isFile() || (entry.isSymbolicLink() && isFileBehindLink(path.join(dir, entry.name)))) {
      listed.push({ name: entry.name, key: directory ? `${entry.name}/` : entry.name, directory })
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
