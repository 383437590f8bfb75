/**
 * @module The read-only Bash command classifier (SPEC A6, R40): a command is read-only when
 * every simple command in it runs a known read-only program with no dangerous flag, nothing
 * is redirected to a file, and no word hides a command (substitutions are refused by the
 * parser). Compound commands (`&&`, `||`, `;`, `|`, newlines, subshells) are read-only only
 * when every part is. When in doubt, it is not read-only.
 */
import { READ_ONLY_PROGRAMS } from './read-only-programs.js'
import { parseShell, type ShellRedirect, type ShellWord, type SimpleCommand } from './shell-parse.js'
import { skipWrappers } from './shell-wrappers.js'

export { stripWrappers } from './shell-wrappers.js'

export interface BashClassification {
  readonly readOnly: boolean
  readonly reason: string
}

/** Words that make a line shell syntax rather than a list of simple commands. */
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'select',
  'function',
  'in',
  '{',
  '}',
  '!',
  '[[',
  ']]',
  'coproc',
])
const SAFE_SINKS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr'])
const OUTPUT_REDIRECTS: ReadonlySet<string> = new Set(['>', '>>', '>|', '&>', '&>>', '<>'])
const XARGS_FLAGS = ['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-x', '--exit']
const XARGS_VALUED = ['-n', '-L', '-P', '-d', '-I', '-s', '-E']

function notReadOnly(reason: string): BashClassification {
  return { readOnly: false, reason }
}

function isReserved(word: ShellWord | undefined): boolean {
  return word !== undefined && !word.quoted && RESERVED_WORDS.has(word.text)
}

function redirectProblem(redirect: ShellRedirect): string | undefined {
  const target = redirect.target
  const known = !target.expands && !target.pattern
  if (redirect.op === '>&' && known && /^(?:[0-9]+|-)$/.test(target.text)) return undefined
  if (!OUTPUT_REDIRECTS.has(redirect.op) && redirect.op !== '>&') return undefined
  return known && SAFE_SINKS.has(target.text) ? undefined : `output redirection to ${target.text}`
}

/** xargs runs its command with arguments read from input: they may be anything, options too. */
function xargsProblem(args: readonly ShellWord[], programs: string[]): string | undefined {
  let index = 0
  for (let word = args[index]; word !== undefined && word.text.startsWith('-'); word = args[index]) {
    if (word.expands || word.pattern) return 'xargs options are only known at run time'
    if (XARGS_FLAGS.includes(word.text) || /^-[nLPdIsE].|^--(?:max-args|max-lines|max-procs|delimiter|replace|max-chars|eof)=/.test(word.text)) index++
    else if (XARGS_VALUED.includes(word.text)) index += 2
    else if (word.text === '-i') index++
    else return `xargs ${word.text} is not a known read-only option`
  }
  if (index >= args.length) return undefined
  return wordsProblem(args.slice(index), programs, true)
}

function wordsProblem(words: readonly ShellWord[], programs: string[], argumentsFromInput: boolean): string | undefined {
  if (words.length === 0) return undefined
  if (argumentsFromInput && words[0]?.assignment === true) return `xargs runs ${words[0].text}, not a known read-only program`
  const { index, reason } = skipWrappers(words)
  if (reason !== undefined) return reason
  const program = words[index]
  if (program === undefined) return 'a variable assignment without a command'
  if (isReserved(program)) return `shell syntax (${program.text}) is not classified`
  if (program.expands || program.pattern) return 'the program name is only known at run time'
  if (program.text.includes('/')) return `${program.text} is a path, not a known program`
  const args = words.slice(index + 1)
  if (program.text === 'xargs') return xargsProblem(args, programs)
  const check = READ_ONLY_PROGRAMS.get(program.text)
  if (check === undefined) return `${program.text} is not a known read-only program`
  programs.push(program.text)
  if (check === null) return undefined
  // Some flag of this program writes or runs something: every argument must be known now.
  if (argumentsFromInput) return `xargs adds arguments to ${program.text} that could be options`
  if (args.some((arg) => arg.expands || arg.pattern)) return `the arguments of ${program.text} are only known at run time`
  return check(args.map((arg) => arg.text))
}

function commandProblem(command: SimpleCommand, programs: string[]): string | undefined {
  for (const redirect of command.redirects) {
    const problem = redirectProblem(redirect)
    if (problem !== undefined) return problem
  }
  return wordsProblem(command.words, programs, false)
}

/**
 * SPEC A6: whether a Bash command only reads, and why.
 * @example classifyBashCommand('git status && ls -la | head') // { readOnly: true, ... }
 * @example classifyBashCommand('cat x > y') // { readOnly: false, reason: 'output redirection to y' }
 */
export function classifyBashCommand(command: string): BashClassification {
  const parsed = parseShell(command)
  if (!parsed.ok) return notReadOnly(parsed.reason)
  if (parsed.commands.length === 0) return notReadOnly('no command')
  const programs: string[] = []
  for (const simple of parsed.commands) {
    const problem = commandProblem(simple, programs)
    if (problem !== undefined) return notReadOnly(problem)
  }
  return { readOnly: true, reason: `read-only: ${[...new Set(programs)].join(', ') || 'redirections only'}` }
}

/**
 * The simple commands of a compound command, as written, for permission rules. Undefined
 * when the line cannot be split safely: a substitution, unknown syntax, a control structure.
 * @example splitCompoundCommand('npm test && curl evil') // ['npm test', 'curl evil']
 */
export function splitCompoundCommand(command: string): string[] | undefined {
  const parsed = parseShell(command)
  if (!parsed.ok) return undefined
  if (parsed.commands.some((simple) => isReserved(simple.words[0]))) return undefined
  return parsed.commands.map((simple) => command.slice(simple.start, simple.end).trim()).filter((part) => part !== '')
}
