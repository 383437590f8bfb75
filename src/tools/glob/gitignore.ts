/**
 * @module .gitignore rules as git applies them: each file's rules hold for paths below its
 * directory, and the deepest file with a matching rule decides (so a nested `!pattern` can
 * re-include what a parent excluded, unless a parent directory itself is excluded).
 */
import path from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { readRegularFileSync } from '../../paths/steering-file.js'

export const GITIGNORE = '.gitignore'
// A .gitignore is a few KB; a bigger one is not worth reading on every search.
const MAX_GITIGNORE_BYTES = 1024 * 1024

interface IgnoreLevel {
  /** The directory of the .gitignore, relative to the base, posix, with a trailing '/' ('' at the base). */
  readonly prefix: string
  readonly rules: Ignore
}

/**
 * Reads `<dir>/.gitignore` when it is a regular file (never through a symlink). A check by
 * name before a read by name let a command swap in a FIFO between the two and hold the walk.
 */
export function readGitignore(dir: string): string | undefined {
  return readRegularFileSync(path.join(dir, GITIGNORE), MAX_GITIGNORE_BYTES)
}

export class GitignoreStack {
  readonly #levels: IgnoreLevel[] = []

  get depth(): number {
    return this.#levels.length
  }

  /** Adds the rules of the .gitignore in directory `prefix` (relative to the base). */
  push(prefix: string, content: string): void {
    this.#levels.push({ prefix, rules: ignore().add(content) })
  }

  /** Drops levels until `depth` remain. */
  truncate(depth: number): void {
    this.#levels.length = depth
  }

  /** Is `fromBase` (posix, relative to the base) ignored? Directories are tested with a trailing '/'. */
  isIgnored(fromBase: string, isDirectory: boolean): boolean {
    for (let index = this.#levels.length - 1; index >= 0; index--) {
      const level = this.#levels[index] as IgnoreLevel
      if (!fromBase.startsWith(level.prefix)) continue
      const below = fromBase.slice(level.prefix.length)
      if (below === '') continue
      const result = level.rules.test(isDirectory ? `${below}/` : below)
      if (result.ignored) return true
      if (result.unignored) return false
    }
    return false
  }
}

/** The rules of the .gitignore files from `base` down to the parent of `root` (root's own are read by the walk). */
export function ancestorRules(base: string, root: string): GitignoreStack {
  const stack = new GitignoreStack()
  const relative = path.relative(base, root)
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return stack
  const names = relative.split(path.sep)
  let dir = base
  let prefix = ''
  for (const name of names) {
    const content = readGitignore(dir)
    if (content !== undefined) stack.push(prefix, content)
    dir = path.join(dir, name)
    prefix = `${prefix}${name}/`
  }
  return stack
}
