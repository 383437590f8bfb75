/**
 * @module A conservative reader of bash command lines: enough of bash's grammar (quotes,
 * escapes, control operators, redirections, heredocs, subshell parentheses) to split a line
 * into simple commands and see their words after quote removal. Whatever could run code
 * hidden inside a word (command, process or arithmetic substitution, parameter expansion
 * with operators) is refused, and so is syntax it does not know: callers read a refusal as
 * "in doubt".
 */
import { BLANK, OPERATOR_START, Refusal, refuse, scanWord, SIMPLE_PARAMETER, type ShellWord } from './shell-words.js'

export type { ShellWord } from './shell-words.js'

export interface ShellRedirect {
  /** `<`, `>`, `>>`, `>|`, `<>`, `<<`, `<<-`, `<<<`, `<&`, `>&`, `&>`, `&>>`. */
  readonly op: string
  readonly fd: string | undefined
  readonly target: ShellWord
}

export interface SimpleCommand {
  readonly words: readonly ShellWord[]
  readonly redirects: readonly ShellRedirect[]
  /** Offsets of the command in the source, heredoc bodies excluded. */
  readonly start: number
  readonly end: number
}

export type ShellParse = { readonly ok: true; readonly commands: readonly SimpleCommand[] } | { readonly ok: false; readonly reason: string }

// Longest first, so that `&&` wins over `&` and `<<<` over `<<`.
const OPERATORS = [';;&', '&>>', '<<<', '<<-', '&&', '||', '|&', ';;', ';&', '&>', '>>', '>&', '>|', '<<', '<>', '<&', ';', '&', '|', '(', ')', '\n', '<', '>']
const REDIRECTS: ReadonlySet<string> = new Set(['&>>', '<<<', '<<-', '&>', '>>', '>&', '>|', '<<', '<>', '<&', '<', '>'])
const NEEDS_COMMAND_BEFORE: ReadonlySet<string> = new Set(['&&', '||', '|', '|&', ';', '&'])
const FD_REDIRECT = /^[0-9]+[<>]/

interface PendingHeredoc {
  readonly delimiter: string
  readonly literal: boolean
  readonly stripTabs: boolean
}

/** Refuses a heredoc body that bash would expand into a command. */
function checkHeredocBody(body: string): void {
  if (body.includes('`') || body.includes('$(') || body.includes('$[')) refuse('command substitution in a heredoc')
  for (const match of body.matchAll(/\$\{([^}]*)\}/g)) {
    if (!SIMPLE_PARAMETER.test(match[1] ?? '')) refuse('parameter expansion with operators in a heredoc')
  }
}

class ShellScanner {
  readonly #src: string
  #pos = 0
  readonly #commands: SimpleCommand[] = []
  #words: ShellWord[] = []
  #redirects: ShellRedirect[] = []
  #start = -1
  #end = -1
  #depth = 0
  #closedGroup = false
  #heredocs: PendingHeredoc[] = []

  constructor(source: string) {
    this.#src = source
  }

  run(): SimpleCommand[] {
    const src = this.#src
    while (this.#skipBlanks() < src.length) {
      const at = this.#pos
      const ch = src[at] ?? ''
      if (ch === '#') this.#skipComment()
      else if (FD_REDIRECT.test(src.slice(at, at + 12))) this.#fdRedirect()
      else if (OPERATOR_START.test(ch)) this.#operator()
      else this.#commandWord()
    }
    this.#endCommand()
    if (this.#depth !== 0) refuse('unbalanced parentheses')
    this.#readHeredocs()
    return this.#commands
  }

  #skipBlanks(): number {
    while (this.#pos < this.#src.length && BLANK.test(this.#src[this.#pos] ?? '')) this.#pos++
    // A backslash-newline between words is only a line continuation.
    if (this.#src.startsWith('\\\n', this.#pos)) {
      this.#pos += 2
      return this.#skipBlanks()
    }
    return this.#pos
  }

  #skipComment(): void {
    const newline = this.#src.indexOf('\n', this.#pos)
    this.#pos = newline === -1 ? this.#src.length : newline
  }

  #hasContent(): boolean {
    return this.#words.length > 0 || this.#redirects.length > 0
  }

  #mark(start: number, end: number): void {
    if (this.#start === -1) this.#start = start
    this.#end = end
  }

  #word(): ShellWord {
    const word = scanWord(this.#src, this.#pos)
    this.#pos = word.end
    return word
  }

  #commandWord(): void {
    if (this.#closedGroup) refuse('a word after a closing parenthesis')
    const word = this.#word()
    this.#words.push(word)
    this.#mark(word.start, word.end)
  }

  #fdRedirect(): void {
    const start = this.#pos
    let end = start
    while (/[0-9]/.test(this.#src[end] ?? '')) end++
    const fd = this.#src.slice(start, end)
    this.#pos = end
    const op = OPERATORS.find((candidate) => REDIRECTS.has(candidate) && this.#src.startsWith(candidate, end))
    if (op === undefined) refuse('unknown redirection')
    this.#redirect(op, fd, start)
  }

  #operator(): void {
    const start = this.#pos
    if (this.#src.startsWith('<(', start) || this.#src.startsWith('>(', start)) refuse('process substitution')
    const op = OPERATORS.find((candidate) => this.#src.startsWith(candidate, start))
    if (op === undefined) refuse('unknown operator')
    if (REDIRECTS.has(op)) return this.#redirect(op, undefined, start)
    this.#pos += op.length
    this.#control(op)
  }

  #control(op: string): void {
    if (op === ';;' || op === ';&' || op === ';;&') refuse('case statement')
    if (op === '(') {
      if (this.#hasContent() || this.#closedGroup) refuse('unexpected parenthesis')
      this.#depth++
      return
    }
    if (op === ')') {
      if (this.#depth === 0 || (!this.#hasContent() && !this.#closedGroup)) refuse('unexpected parenthesis')
      this.#endCommand()
      this.#depth--
      this.#closedGroup = true
      return
    }
    if (NEEDS_COMMAND_BEFORE.has(op) && !this.#hasContent() && !this.#closedGroup) refuse(`syntax error near ${op}`)
    this.#endCommand()
    this.#closedGroup = false
    if (op === '\n') this.#readHeredocs()
  }

  #redirect(op: string, fd: string | undefined, start: number): void {
    this.#pos += op.length
    this.#skipBlanks()
    const next = this.#src[this.#pos]
    if (next === undefined || OPERATOR_START.test(next)) refuse('missing redirection target')
    const target = this.#word()
    if (op === '<<' || op === '<<-') {
      this.#heredocs.push({ delimiter: target.text, literal: target.quoted, stripTabs: op === '<<-' })
    }
    this.#redirects.push({ op, fd, target })
    this.#mark(start, target.end)
  }

  #endCommand(): void {
    if (this.#hasContent()) {
      this.#commands.push({ words: this.#words, redirects: this.#redirects, start: this.#start, end: this.#end })
    }
    this.#words = []
    this.#redirects = []
    this.#start = -1
    this.#end = -1
  }

  /** Heredoc bodies start on the line after their operator, in the order they were opened. */
  #readHeredocs(): void {
    for (const doc of this.#heredocs) {
      const body: string[] = []
      while (this.#pos < this.#src.length) {
        const newline = this.#src.indexOf('\n', this.#pos)
        const lineEnd = newline === -1 ? this.#src.length : newline
        const raw = this.#src.slice(this.#pos, lineEnd)
        this.#pos = newline === -1 ? this.#src.length : newline + 1
        const line = doc.stripTabs ? raw.replace(/^\t+/, '') : raw
        if (line === doc.delimiter) break
        body.push(line)
      }
      if (!doc.literal) checkHeredocBody(body.join('\n'))
    }
    this.#heredocs = []
  }
}

/**
 * Splits a bash command line into its simple commands, or says why it will not.
 * @example parseShell('git status && ls -la | head') // ok: three commands
 * @example parseShell('echo $(rm x)') // { ok: false, reason: 'command substitution' }
 */
export function parseShell(source: string): ShellParse {
  try {
    return { ok: true, commands: new ShellScanner(source).run() }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message }
    throw error
  }
}
