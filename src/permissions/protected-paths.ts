/**
 * @module The files that steer the agent or the tools it runs, whose writing asks in every
 * mode: the instruction files (`AGENTS.md`, `CLAUDE.md`, in any folder), the workspace's
 * `.toolexec/` and any `.git/` (its config names programs git runs, its hooks are
 * programs). For Write and Edit by the target's path; for a Bash command that is not
 * read-only, by every word and redirection the parser sees (src/permissions/shell-parse.ts):
 * a word that names such a file (`tee AGENTS.md`, `cp x .git/hooks/pre-commit`, `cd .git
 * && ...`, `bash -c 'echo > .git/config'`), an output redirection whose target is only
 * known when it runs, a word that is a symlink to such a file, and `git config`, `git
 * remote` and `git submodule`, which write `.git/config` without naming it. A parser cannot
 * see what a program does with a name it computes; the kernel sandbox is what holds then.
 */
import path from 'node:path'
import { realLocation } from '../paths/locations.js'
import { checkGit } from './git-read-only.js'
import { parseShell, type ShellWord, type SimpleCommand } from './shell-parse.js'
import { skipWrappers } from './shell-wrappers.js'

/** Lower case: on a case-insensitive file system (macOS by default) `claude.md` is CLAUDE.md. */
const INSTRUCTION_FILES: ReadonlySet<string> = new Set(['agents.md', 'claude.md'])
/** A repository's `.git` at any depth (a nested clone is as dangerous); the workspace's own `.toolexec`. */
const GIT_FOLDER = '.git'
const TOOLEXEC_FOLDER = '.toolexec'
/** Such a name inside any word: `.git` or `.toolexec` as a whole path segment, or an instruction file. */
const MENTION = /(?:^|[^a-z0-9_.-])\.(?:git|toolexec)(?:$|[^a-z0-9_-])|(?:^|[^a-z0-9_-])(?:agents|claude)\.md(?:$|[^a-z0-9_.-])/
const OUTPUT_REDIRECTS: ReadonlySet<string> = new Set(['>', '>>', '>|', '&>', '&>>', '<>'])
const SAFE_SINKS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr'])
const CONFIG_WRITING_GIT: ReadonlySet<string> = new Set(['config', 'remote', 'submodule'])

/** Whether `relative` (inside the workspace, either separator) is a protected path. */
export function isProtectedRelative(relative: string): boolean {
  const segments = relative.split(/[\\/]/).map((segment) => segment.toLowerCase())
  if (segments.includes(GIT_FOLDER) || segments[0] === TOOLEXEC_FOLDER) return true
  return INSTRUCTION_FILES.has(segments[segments.length - 1] ?? '')
}

function relativeInside(workspace: string, full: string): string | undefined {
  const relative = path.relative(workspace, full)
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative
}

function mentionsProtected(text: string): boolean {
  return MENTION.test(text.toLowerCase())
}

/** `git config ...` and the like: a write of `.git/config` that names no file. */
function writesGitConfig(command: SimpleCommand): boolean {
  const words = command.words.slice(skipWrappers(command.words).index)
  if (words[0]?.text !== 'git') return false
  const args = words.slice(1).map((word) => word.text)
  let index = 0
  while (index < args.length && (args[index] ?? '').startsWith('-')) index += args[index] === '-C' || args[index] === '-c' ? 2 : 1
  const subcommand = args[index]
  return subcommand !== undefined && CONFIG_WRITING_GIT.has(subcommand) && checkGit(args) !== undefined
}

function redirectInDoubt(command: SimpleCommand): ShellWord | undefined {
  return command.redirects.find((redirect) => OUTPUT_REDIRECTS.has(redirect.op) && (redirect.target.expands || redirect.target.pattern) && !SAFE_SINKS.has(redirect.target.text))?.target
}

/** Where a literal word leads through symlinks, when that is a protected path of the workspace. */
async function leadsToProtected(text: string, workspace: string, realWorkspace: string): Promise<boolean> {
  const real = await realLocation(path.resolve(workspace, text)).catch(() => undefined)
  if (real === undefined) return false
  const relative = relativeInside(realWorkspace, real)
  return relative !== undefined && isProtectedRelative(relative)
}

/**
 * What a Bash command that is not read-only may write of the protected files, or undefined.
 * @example await protectedBashWrite('echo x > .git/config', '/ws') // '.git/config'
 */
export async function protectedBashWrite(command: string, workspace: string): Promise<string | undefined> {
  const parsed = parseShell(command)
  // A line the parser refuses hides what it does: mentioning a protected name is doubt enough.
  if (!parsed.ok) return mentionsProtected(command) ? 'a command the parser cannot read that names a protected file' : undefined
  const realWorkspace = await realLocation(path.resolve(workspace)).catch(() => path.resolve(workspace))
  for (const simple of parsed.commands) {
    const words = [...simple.words, ...simple.redirects.map((redirect) => redirect.target)]
    const named = words.find((word) => mentionsProtected(word.text))
    if (named !== undefined) return named.text
    const unknown = redirectInDoubt(simple)
    if (unknown !== undefined) return `${unknown.text} (a redirection only known when it runs)`
    if (writesGitConfig(simple)) return '.git/config'
    for (const word of words) {
      if (word.expands || word.pattern || word.assignment || word.text.startsWith('-')) continue
      if (await leadsToProtected(word.text, workspace, realWorkspace)) return `${word.text} (it leads to a protected file)`
    }
  }
  return undefined
}
