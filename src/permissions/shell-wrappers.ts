/**
 * @module Commands that only run another command (`timeout`, `nice`, `env VAR=x`, `nohup`,
 * `time`) and environment assignments in front of a command. Only assignments of variables
 * that cannot change what runs (locale, time zone, colours, terminal size) are stripped:
 * `LD_PRELOAD=x ls` or `GIT_PAGER=sh git log` stay what they are.
 */
import { parseShell, type ShellWord } from './shell-parse.js'

const SAFE_VARIABLE = /^(?:LANG|LANGUAGE|LC_[A-Z_]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|COLUMNS|LINES)$/
const DURATION = /^[0-9]+(?:\.[0-9]+)?[smhd]?$/

/** Where a wrapper's command starts; a string says why it is not safe to look through it. */
type WrapperSkip = (words: readonly ShellWord[], from: number) => number | string | undefined

export interface WrapperStrip {
  /** The index of the word that names the program that finally runs. */
  readonly index: number
  /** Set when an assignment may change what runs. */
  readonly reason?: string | undefined
}

function literal(word: ShellWord | undefined): string | undefined {
  return word === undefined || word.expands || word.pattern ? undefined : word.text
}

export function assignmentProblem(word: ShellWord): string | undefined {
  const name = (word.text.split('=', 1)[0] ?? '').replace(/\+$/, '')
  return SAFE_VARIABLE.test(name) ? undefined : `setting ${name} may change what runs`
}

function skipTimeout(words: readonly ShellWord[], from: number): number | undefined {
  let index = from
  for (let text = literal(words[index]); text !== undefined && text.startsWith('-'); text = literal(words[index])) {
    if (text === '-s' || text === '-k' || text === '--signal' || text === '--kill-after') index += 2
    else if (/^(?:-[sk].|--(?:signal|kill-after)=|--preserve-status$|--foreground$|-v$|--verbose$)/.test(text)) index++
    else return undefined
  }
  return DURATION.test(literal(words[index]) ?? '') ? index + 1 : undefined
}

function skipNice(words: readonly ShellWord[], from: number): number | undefined {
  let index = from
  for (let text = literal(words[index]); text !== undefined && text.startsWith('-'); text = literal(words[index])) {
    if (text === '-n' || text === '--adjustment') index += 2
    else if (/^(?:-n-?[0-9]+|--adjustment=-?[0-9]+|-[0-9]+)$/.test(text)) index++
    else return undefined
  }
  return index
}

function skipEnv(words: readonly ShellWord[], from: number): number | string | undefined {
  let index = from
  for (let word = words[index]; word !== undefined; word = words[index]) {
    const text = literal(word)
    if (word.assignment) {
      const problem = assignmentProblem(word)
      if (problem !== undefined) return problem
      index++
    } else if (text === '-i' || text === '-' || text === '--ignore-environment' || text === '-u' || text === '--unset' || (text !== undefined && /^(?:-u.|--unset=)/.test(text))) {
      // The environment a read-only command runs with keeps git from starting programs.
      return `env ${text} changes the environment the command runs with`
    } else if (text === '--') {
      return index + 1
    } else {
      return text !== undefined && text.startsWith('-') ? undefined : index
    }
  }
  return index
}

const WRAPPERS: ReadonlyMap<string, { readonly skip: WrapperSkip; readonly assignmentsAfter: boolean }> = new Map([
  ['timeout', { skip: skipTimeout, assignmentsAfter: false }],
  ['nice', { skip: skipNice, assignmentsAfter: false }],
  ['env', { skip: skipEnv, assignmentsAfter: false }],
  ['nohup', { skip: (words: readonly ShellWord[], from: number) => (literal(words[from]) === '--' ? from + 1 : from), assignmentsAfter: false }],
  // `time` is a keyword: what follows is a whole simple command, assignments included.
  ['time', { skip: (words: readonly ShellWord[], from: number) => (literal(words[from]) === '-p' ? from + 1 : from), assignmentsAfter: true }],
])

/**
 * Looks through leading safe assignments and wrappers to the program that finally runs.
 * A wrapper with nothing after it is itself the program.
 * @example skipWrappers(words of 'timeout 5 nice -n 2 ls') // { index: 5 }
 */
export function skipWrappers(words: readonly ShellWord[]): WrapperStrip {
  let index = 0
  let assignments = true
  while (index < words.length) {
    const word = words[index] as ShellWord
    if (word.assignment && assignments) {
      const reason = assignmentProblem(word)
      if (reason !== undefined) return { index, reason }
      index++
      continue
    }
    const wrapper = WRAPPERS.get(literal(word) ?? '')
    const next = wrapper?.skip(words, index + 1)
    if (typeof next === 'string') return { index, reason: next }
    if (wrapper === undefined || next === undefined || next >= words.length) break
    index = next
    assignments = wrapper.assignmentsAfter
  }
  return { index }
}

/**
 * The command without its wrappers, for permission rules: `timeout 30 npm test` ->
 * `npm test`. A line that is not one simple command, an unsafe assignment, or a
 * redirection before the program leaves the command as it is (trimmed).
 * @example stripWrappers('env LANG=C nohup git status') // 'git status'
 */
export function stripWrappers(command: string): string {
  const trimmed = command.trim()
  const parsed = parseShell(trimmed)
  if (!parsed.ok || parsed.commands.length !== 1) return trimmed
  const only = parsed.commands[0]
  if (only === undefined) return trimmed
  const { index, reason } = skipWrappers(only.words)
  const program = only.words[index]
  if (reason !== undefined || program === undefined || index === 0) return trimmed
  if (only.redirects.some((redirect) => redirect.target.start < program.start)) return trimmed
  return trimmed.slice(program.start).trim()
}
