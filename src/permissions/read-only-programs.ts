/**
 * @module The programs a Bash command may run and still be read-only (SPEC A6), each with
 * the check of its arguments when some flag of it writes files or runs other programs.
 * A check gets the words after quote removal and returns why they are not read-only.
 */
import { checkGit } from './git-read-only.js'
import { sedScriptIsReadOnly } from './sed-script.js'

export type ArgumentsCheck = (args: readonly string[]) => string | undefined

/** No flag of these writes a file or runs another program. */
const PLAIN_PROGRAMS = [
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'pwd',
  'echo',
  'printf',
  'which',
  'whereis',
  'type',
  'stat',
  'du',
  'df',
  'cut',
  'tr',
  'jq',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'whoami',
  'id',
  'groups',
  'uname',
  'nproc',
  'uptime',
  'free',
  'ps',
  'true',
  'false',
  'test',
  '[',
  'seq',
  'nl',
  'tac',
  'rev',
  'od',
  'hexdump',
  'strings',
  'cmp',
  'comm',
  'diff',
  'column',
  'fold',
  'fmt',
  'paste',
  'join',
  'expand',
  'unexpand',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'sleep',
  'printenv',
  'cd',
]

/** Before `--`: whether any option is one of `short` letters (also inside clusters) or `long` names. */
function hasOption(args: readonly string[], short: string, long: readonly string[]): string | undefined {
  for (const arg of args) {
    if (arg === '--') return undefined
    if (arg.startsWith('--')) {
      const name = arg.split('=', 1)[0] ?? arg
      if (long.includes(name)) return arg
    } else if (arg.startsWith('-') && arg.length > 1 && [...arg.slice(1)].some((letter) => short.includes(letter))) {
      return arg
    }
  }
  return undefined
}

function rejectOptions(program: string, short: string, long: readonly string[]): ArgumentsCheck {
  return function checkOptions(args) {
    const found = hasOption(args, short, long)
    return found === undefined ? undefined : `${program} ${found} writes files or runs programs`
  }
}

/** The operands once options (and the values of `valued` options) are set aside. */
function operands(args: readonly string[], valued: readonly string[]): string[] {
  const found: string[] = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? ''
    if (arg === '--') return [...found, ...args.slice(index + 1)]
    if (valued.includes(arg)) index++
    else if (!arg.startsWith('-') || arg === '-') found.push(arg)
  }
  return found
}

const FIND_ACTIONS = ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']

function checkFind(args: readonly string[]): string | undefined {
  const action = args.find((arg) => FIND_ACTIONS.includes(arg))
  return action === undefined ? undefined : `find ${action} changes files or runs programs`
}

function checkUniq(args: readonly string[]): string | undefined {
  const files = operands(args, ['-f', '-s', '-w'])
  return files.length > 1 ? 'uniq with a second file writes to it' : undefined
}

function checkXxd(args: readonly string[]): string | undefined {
  const files = operands(args, ['-c', '-g', '-l', '-s', '-o', '-n', '-cols', '-len', '-seek', '-groupsize', '-name'])
  return files.length > 1 ? 'xxd with a second file writes to it' : undefined
}

function checkDate(args: readonly string[]): string | undefined {
  const set = hasOption(args, 's', ['--set'])
  if (set !== undefined) return `date ${set} sets the clock`
  const other = operands(args, ['-d', '--date', '-f', '--file', '-r', '--reference']).find((arg) => !arg.startsWith('+'))
  return other === undefined ? undefined : 'date with an operand sets the clock'
}

const HOSTNAME_FLAGS = ['-f', '-i', '-I', '-s', '-d', '-a', '-A', '--fqdn', '--short', '--domain', '--ip-address', '--all-ip-addresses', '--all-fqdns']

function checkHostname(args: readonly string[]): string | undefined {
  return args.every((arg) => HOSTNAME_FLAGS.includes(arg)) ? undefined : 'hostname with these arguments changes the host name'
}

/** `env` that runs nothing prints the environment; `env -S ...` and the like run programs. */
function checkEnv(args: readonly string[]): string | undefined {
  return args.every((arg) => arg === '-0' || arg === '--null') ? undefined : `env ${args.join(' ')} runs a program`
}

function checkSed(args: readonly string[]): string | undefined {
  const scripts: string[] = []
  const files: string[] = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? ''
    if (arg === '--') {
      files.push(...args.slice(index + 1))
      break
    }
    if (arg === '-e' || arg === '--expression') scripts.push(args[++index] ?? '')
    else if (arg.startsWith('--expression=')) scripts.push(arg.slice('--expression='.length))
    else if (arg.startsWith('-i') || arg.startsWith('--in-place')) return 'sed -i edits files in place'
    else if (arg === '-f' || arg.startsWith('--file')) return 'sed -f runs a script from a file'
    else if (/^-[nErsuz]*e$/.test(arg)) scripts.push(args[++index] ?? '')
    else if (/^-[nErsuz]+$/.test(arg) || SED_LONG_FLAGS.includes(arg)) continue
    else if (arg.startsWith('-') && arg !== '-') return `sed ${arg} is not a known read-only option`
    else files.push(arg)
  }
  if (scripts.length === 0 && files.length > 0) scripts.push(files.shift() ?? '')
  return scripts.every(sedScriptIsReadOnly) ? undefined : 'the sed script writes files or runs commands'
}

const SED_LONG_FLAGS = ['--quiet', '--silent', '--regexp-extended', '--separate', '--unbuffered', '--null-data', '--posix', '--debug', '--sandbox']

export const READ_ONLY_PROGRAMS: ReadonlyMap<string, ArgumentsCheck | null> = new Map<string, ArgumentsCheck | null>([
  ...PLAIN_PROGRAMS.map((name): [string, null] => [name, null]),
  ['find', checkFind],
  ['git', checkGit],
  ['env', checkEnv],
  ['sed', checkSed],
  ['sort', rejectOptions('sort', 'o', ['--output', '--compress-program'])],
  ['rg', rejectOptions('rg', '', ['--pre', '--hostname-bin'])],
  ['file', rejectOptions('file', 'C', ['--compile'])],
  ['tree', rejectOptions('tree', 'o', [])],
  ['uniq', checkUniq],
  ['xxd', checkXxd],
  ['date', checkDate],
  ['hostname', checkHostname],
])
