/**
 * @module The strict read-only subset: what may run unasked when no sandbox confines Bash.
 * The full classifier (bash-classifier.ts) reasons about what a shell will do, and a shell
 * expands braces, globs, `$'..'`, `~` and `cd` in ways a parser does not see; without a
 * kernel to hold the line, only a command whose every word the shell passes through
 * unchanged is let through. It must:
 * - hold only letters, digits, blanks and `_ . / - = : , + @` (no quote, `$`, `~`, glob,
 *   brace, `\`, `#`, `!`, operator or redirection: one simple command, nothing expanded);
 * - run one program of a short list, with only the options listed for it;
 * - name no absolute path and no `..`, so that every path is in the workspace by name (the
 *   permission rules then follow symlinks, as for every Bash command);
 * - and the full classifier must agree that it is read-only.
 * In doubt, it asks.
 */
import { classifyBashCommand } from './bash-classifier.js'

const PLAIN_TEXT = /^[A-Za-z0-9_ ./=:,+@-]+$/
const NUMBER = /^\d+$/

interface ProgramRule {
  /** Options allowed as they are. */
  readonly flags: ReadonlySet<string>
  /** Options that take the next word, a number. */
  readonly numbered?: ReadonlySet<string>
  /** Whether it may take operands (paths or words). */
  readonly operands: boolean
}

const rule = (flags: string[], operands: boolean, numbered: string[] = []): ProgramRule => ({ flags: new Set(flags), numbered: new Set(numbered), operands })

const STRICT_PROGRAMS: ReadonlyMap<string, ProgramRule> = new Map([
  ['ls', rule(['-l', '-a', '-A', '-1', '-h', '-F', '-la', '-al', '-lh', '-lah', '-alh', '-t', '-S', '-r'], true)],
  ['pwd', rule([], false)],
  ['cat', rule(['-n'], true)],
  ['head', rule([], true, ['-n', '-c'])],
  ['tail', rule([], true, ['-n', '-c'])],
  ['wc', rule(['-l', '-c', '-w', '-m'], true)],
  ['grep', rule(['-n', '-i', '-c', '-l', '-v', '-w', '-F', '-E', '-h', '-H', '-o', '-s', '-q'], true)],
  ['echo', rule(['-n'], true)],
  ['true', rule([], false)],
  ['false', rule([], false)],
  ['whoami', rule([], false)],
  ['uname', rule(['-a', '-r', '-s', '-m'], false)],
])

function isPlainOperand(word: string): boolean {
  return !word.startsWith('/') && !word.split('/').includes('..')
}

function argumentsAllowed(program: ProgramRule, args: readonly string[]): boolean {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? ''
    if (word.startsWith('-')) {
      if (program.flags.has(word)) continue
      if (program.numbered?.has(word) === true && NUMBER.test(args[index + 1] ?? '')) {
        index++
        continue
      }
      return false
    }
    if (!program.operands || !isPlainOperand(word)) return false
  }
  return true
}

/** Whether `command` is in the strict subset; see the module comment. */
export function isStrictlyReadOnly(command: string): boolean {
  if (!PLAIN_TEXT.test(command)) return false
  const words = command.trim().split(/ +/)
  const program = STRICT_PROGRAMS.get(words[0] ?? '')
  if (program === undefined || !argumentsAllowed(program, words.slice(1))) return false
  return classifyBashCommand(command).readOnly
}
