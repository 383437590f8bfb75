/**
 * @module Before a read-only command with git runs unasked: does the repository it reads
 * name a program that no environment override can stop (git-neutral-config.ts)? Each git
 * of the command is looked at in every directory it may run in (the workspace, and where a
 * `cd` before it may have gone), with its own `-C`, `--git-dir` and `--work-tree`; git
 * itself lists the config (`git config --list --includes --show-scope`), so `include` and
 * `includeIf` are followed exactly as the command would follow them.
 */
import { execFile } from 'node:child_process'
import path from 'node:path'
import { DRIVER_PROGRAM_KEY, neutralGitEnvironment } from './git-neutral-config.js'
import { parseShell } from './shell-parse.js'
import { skipWrappers } from './shell-wrappers.js'

/** Scopes that belong to the repository rather than to the operator. */
const TRUSTED_SCOPES: ReadonlySet<string> = new Set(['system', 'global'])
const LIST_TIMEOUT_MS = 5_000

interface GitRun {
  readonly dirs: readonly string[]
  /** The global options before the subcommand: they choose the repository. */
  readonly globals: readonly string[]
}

/** The git runs of a command line, or a reason when where one runs cannot be known. */
function gitRuns(command: string, workspace: string): GitRun[] | string {
  const parsed = parseShell(command)
  if (!parsed.ok) return []
  let dirs = [workspace]
  let unknownDir: string | undefined
  const runs: GitRun[] = []
  for (const simple of parsed.commands) {
    const words = simple.words.slice(skipWrappers(simple.words).index)
    const program = words[0]
    if (program === undefined || program.expands || program.pattern) continue
    const args = words.slice(1)
    if (program.text === 'cd') {
      const target = args.find((arg) => !arg.text.startsWith('-') || arg.text === '-')
      if (target === undefined || target.expands || target.pattern || target.text === '-' || target.text.startsWith('~')) unknownDir = target?.text ?? '(home)'
      // Each cd may or may not have run (`a || cd x`): every directory stays possible.
      else dirs = [...new Set([...dirs, ...dirs.map((dir) => path.resolve(dir, target.text))])]
    } else if (program.text === 'git') {
      if (unknownDir !== undefined) return `git runs after cd ${unknownDir}, in a repository only known when it runs`
      runs.push({ dirs, globals: globalOptions(args.map((arg) => arg.text)) })
    }
  }
  return runs
}

function globalOptions(args: readonly string[]): string[] {
  const globals: string[] = []
  for (let index = 0; index < args.length && (args[index] ?? '').startsWith('-'); index++) {
    const arg = args[index] ?? ''
    globals.push(arg)
    if (arg === '-C') globals.push(args[++index] ?? '.')
  }
  return globals
}

/** The repository's own keys that start programs, as `git config` lists them in `dir`. */
function programKeys(dir: string, globals: readonly string[], env: Record<string, string>): Promise<string[] | string> {
  return new Promise((resolve) => {
    const args = [...globals, 'config', '--list', '--includes', '--show-scope', '--name-only']
    execFile('git', args, { cwd: dir, env, timeout: LIST_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = (error as NodeJS.ErrnoException | null)?.code
      // No git, or no such directory: the command cannot run git there either.
      if (code === 'ENOENT') return resolve([])
      if (error !== null) return resolve(`git config could not be read in ${dir}: ${stderr.trim().split('\n')[0] ?? error.message}`)
      const keys = stdout
        .split('\n')
        .map((line) => line.split('\t'))
        .filter(([scope, key]) => scope !== undefined && key !== undefined && !TRUSTED_SCOPES.has(scope) && DRIVER_PROGRAM_KEY.test(key))
        .map(([, key]) => key as string)
      resolve(keys)
    })
  })
}

/**
 * Why the git of `command` might start a program of the repository's config, or undefined.
 * @example await gitConfigProgramsProblem('git diff', '/ws') // 'git may run diff.x.textconv ...'
 */
export async function gitConfigProgramsProblem(command: string, workspace: string): Promise<string | undefined> {
  const runs = gitRuns(command, path.resolve(workspace))
  if (typeof runs === 'string') return runs
  if (runs.length === 0) return undefined
  const env = neutralGitEnvironment({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' })
  for (const run of runs) {
    for (const dir of run.dirs) {
      const keys = await programKeys(dir, run.globals, env)
      if (typeof keys === 'string') return keys
      if (keys.length > 0) return `the repository's git config in ${dir} names programs git may run (${keys.join(', ')})`
    }
  }
  return undefined
}
