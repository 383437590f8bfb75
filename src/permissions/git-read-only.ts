/**
 * @module Which git invocations only read (SPEC A6): `status`, `log`, `diff`, `show`, `branch`
 * and `tag` when they list, and a few other inspection commands. Global options that run
 * programs or change configuration (`-c`, `--exec-path`, ...) and `--output` are refused.
 */

const GLOBAL_FLAGS = ['--no-pager', '-P', '--paginate', '-p', '--no-optional-locks', '--literal-pathspecs', '--no-replace-objects', '--bare']
const GLOBAL_PREFIXES = ['--git-dir=', '--work-tree=']
const WRITING_OPTIONS = ['--output', '--ext-diff', '--open-files-in-pager']

const LIST_ONLY: Readonly<Record<string, { readonly flags: readonly string[]; readonly valued: readonly string[] }>> = {
  branch: {
    flags: ['-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '-l', '--list', '--show-current', '--color', '--no-color', '--column', '--no-column', '-i', '--ignore-case', '--omit-empty'],
    valued: ['--merged', '--no-merged', '--contains', '--no-contains', '--points-at', '--sort', '--format'],
  },
  tag: {
    flags: ['-l', '--list', '-n', '--color', '--no-color', '--column', '--no-column', '-i', '--ignore-case', '--omit-empty'],
    valued: ['--merged', '--no-merged', '--contains', '--no-contains', '--points-at', '--sort', '--format'],
  },
}

type SubcommandCheck = (args: readonly string[]) => string | undefined

const ANY: SubcommandCheck = () => undefined

const SUBCOMMANDS: ReadonlyMap<string, SubcommandCheck> = new Map<string, SubcommandCheck>([
  ['status', ANY],
  ['log', ANY],
  ['diff', ANY],
  ['show', ANY],
  ['blame', ANY],
  ['rev-parse', ANY],
  ['ls-files', ANY],
  ['ls-tree', ANY],
  ['cat-file', ANY],
  ['describe', ANY],
  ['shortlog', ANY],
  ['show-ref', ANY],
  ['grep', (args) => (args.some((arg) => /^-[a-zA-Z]*O/.test(arg)) ? 'git grep -O runs a pager' : undefined)],
  ['branch', (args) => listOnly('branch', args)],
  ['tag', (args) => listOnly('tag', args)],
  ['remote', checkRemote],
  ['stash', (args) => (args[0] === 'list' || args[0] === 'show' ? undefined : 'git stash changes the stash')],
  ['reflog', (args) => (args[0] === 'expire' || args[0] === 'delete' ? `git reflog ${args[0]} changes the reflog` : undefined)],
])

/** `git branch` and `git tag` list, unless a name is given without `--list`. */
function listOnly(subcommand: keyof typeof LIST_ONLY, args: readonly string[]): string | undefined {
  const options = LIST_ONLY[subcommand]
  if (options === undefined) return `git ${subcommand} is not read-only`
  const listing = args.some((arg) => arg === '-l' || arg === '--list')
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? ''
    const name = arg.split('=', 1)[0] ?? arg
    if (options.valued.includes(name)) {
      if (!arg.includes('=') && !(args[index + 1] ?? '-').startsWith('-')) index++
    } else if (options.flags.includes(arg) || (subcommand === 'tag' && /^-n[0-9]+$/.test(arg))) {
      continue
    } else if (arg.startsWith('-') || !listing) {
      return `git ${subcommand} ${arg} changes ${subcommand === 'tag' ? 'tags' : 'branches'}`
    }
  }
  return undefined
}

function checkRemote(args: readonly string[]): string | undefined {
  const first = args[0]
  if (first === undefined || first === '-v' || first === '--verbose' || first === 'show' || first === 'get-url') return undefined
  return `git remote ${first} changes remotes`
}

/**
 * Why `git <args>` is not read-only, or undefined when it is.
 * @example checkGit(['status', '--short']) // undefined
 * @example checkGit(['-c', 'core.pager=sh', 'log']) // 'git -c ...'
 */
export function checkGit(args: readonly string[]): string | undefined {
  let index = 0
  while (index < args.length && (args[index] ?? '').startsWith('-')) {
    const arg = args[index] ?? ''
    if (arg === '-C') index += 2
    else if (GLOBAL_FLAGS.includes(arg) || GLOBAL_PREFIXES.some((prefix) => arg.startsWith(prefix))) index++
    else return `git ${arg} is not a known read-only option`
  }
  const subcommand = args[index]
  if (subcommand === undefined) return undefined
  const rest = args.slice(index + 1)
  const writing = rest.find((arg) => WRITING_OPTIONS.includes(arg.split('=', 1)[0] ?? arg))
  if (writing !== undefined) return `git ${subcommand} ${writing} writes files or runs programs`
  const check = SUBCOMMANDS.get(subcommand)
  if (check === undefined) return `git ${subcommand} is not a known read-only command`
  return check(rest)
}
