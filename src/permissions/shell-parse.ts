/**
 * @module A conservative reader of bash command lines: enough of bash's grammar (quotes,
 * escapes, control operators, redirections, heredocs, subshell parentheses) to split a line
 * into simple commands and see their words after quote removal. Whatever could run code
 * hidden inside a word (command, process or arithmetic substitution, parameter expansion
 * with operators) is refused, and so is syntax it does not know: callers read a refusal as
 * "in doubt".
 */

export interface ShellWord {
  /** The word after quote removal; expansions stay as written. */
  readonly text: string
  readonly start: number
  readonly end: number
  /** Some part was quoted or escaped. */
  readonly quoted: boolean
  /** Holds a parameter expansion or ANSI-C escapes: its value is only known when it runs. */
  readonly expands: boolean
  /** Holds unquoted glob or brace characters: it may become other words, even options. */
  readonly pattern: boolean
  /** `NAME=value` or `NAME+=value` with an unquoted name. */
  readonly assignment: boolean
}

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

export type ShellParse =
  | { readonly ok: true; readonly commands: readonly SimpleCommand[] }
  | { readonly ok: false; readonly reason: string }

// Longest first, so that `&&` wins over `&` and `<<<` over `<<`.
const OPERATORS = [';;&', '&>>', '<<<', '<<-', '&&', '||', '|&', ';;', ';&', '&>', '>>', '>&', '>|', '<<', '<>', '<&', ';', '&', '|', '(', ')', '\n', '<', '>']
const REDIRECTS: ReadonlySet<string> = new Set(['&>>', '<<<', '<<-', '&>', '>>', '>&', '>|', '<<', '<>', '<&', '<', '>'])
const NEEDS_COMMAND_BEFORE: ReadonlySet<string> = new Set(['&&', '||', '|', '|&', ';', '&'])
const OPERATOR_START = /[;&|<>()\n]/
const BLANK = /[ \t]/
const FD_REDIRECT = /^[0-9]+[<>]/
const NAME_START = /[A-Za-z_]/
const NAME_CHAR = /[A-Za-z0-9_]/
const SPECIAL_PARAMETER = /[@*#?$!\-0-9]/
const SIMPLE_PARAMETER = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*\+?$/
const DOUBLE_QUOTE_ESCAPES = '$`"\\\n'

class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason)
}

interface Fragment {
  readonly text: string
  readonly expands: boolean
  readonly quoted?: boolean
}

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

  #word(): ShellWord {
    const src = this.#src
    const start = this.#pos
    let text = ''
    let quoted = false
    let expands = false
    let pattern = false
    let assignment = false
    const add = (fragment: Fragment): void => {
      text += fragment.text
      expands ||= fragment.expands
    }
    while (this.#pos < src.length) {
      const ch = src[this.#pos] ?? ''
      if (BLANK.test(ch) || OPERATOR_START.test(ch)) break
      if (ch === '\\') {
        const next = src[this.#pos + 1]
        this.#pos += next === undefined ? 1 : 2
        if (next !== '\n') {
          text += next ?? '\\'
          quoted = true
        }
      } else if (ch === "'") {
        add(this.#singleQuoted())
        quoted = true
      } else if (ch === '"') {
        add(this.#doubleQuoted())
        quoted = true
      } else if (ch === '`') {
        refuse('command substitution')
      } else if (ch === '$') {
        const fragment = this.#dollar(false)
        add(fragment)
        quoted ||= fragment.quoted === true
      } else {
        if (ch === '=' && !assignment && !quoted && !expands && !pattern && ASSIGNMENT_NAME.test(text)) assignment = true
        if (ch === '*' || ch === '?' || ch === '[' || ch === '{') pattern = true
        text += ch
        this.#pos++
      }
    }
    return { text, start, end: this.#pos, quoted, expands, pattern, assignment }
  }

  #singleQuoted(): Fragment {
    const close = this.#src.indexOf("'", this.#pos + 1)
    if (close === -1) refuse('unterminated quote')
    const text = this.#src.slice(this.#pos + 1, close)
    this.#pos = close + 1
    return { text, expands: false }
  }

  #doubleQuoted(): Fragment {
    const src = this.#src
    this.#pos++
    let text = ''
    let expands = false
    while (this.#pos < src.length) {
      const ch = src[this.#pos] ?? ''
      if (ch === '"') {
        this.#pos++
        return { text, expands }
      }
      if (ch === '`') refuse('command substitution')
      if (ch === '$') {
        const fragment = this.#dollar(true)
        text += fragment.text
        expands ||= fragment.expands
      } else if (ch === '\\' && DOUBLE_QUOTE_ESCAPES.includes(src[this.#pos + 1] ?? 'x')) {
        const next = src[this.#pos + 1] ?? ''
        if (next !== '\n') text += next
        this.#pos += 2
      } else {
        text += ch
        this.#pos++
      }
    }
    refuse('unterminated quote')
  }

  /** `$` at the cursor: a parameter, a refused substitution, ANSI-C quoting, or a plain `$`. */
  #dollar(inDoubleQuotes: boolean): Fragment {
    const src = this.#src
    const next = src[this.#pos + 1] ?? ''
    if (next === '(') refuse(src[this.#pos + 2] === '(' ? 'arithmetic expansion' : 'command substitution')
    if (next === '[') refuse('arithmetic expansion')
    if (next === '{') return this.#braceParameter()
    if (!inDoubleQuotes && next === "'") return this.#ansiCQuoted()
    if (!inDoubleQuotes && next === '"') {
      // $"..." is a translated string: the double quotes that follow are read as such.
      this.#pos++
      return { text: '', expands: false }
    }
    if (NAME_START.test(next)) {
      let end = this.#pos + 1
      while (NAME_CHAR.test(src[end] ?? '')) end++
      const text = src.slice(this.#pos, end)
      this.#pos = end
      return { text, expands: true }
    }
    if (next !== '' && SPECIAL_PARAMETER.test(next)) {
      this.#pos += 2
      return { text: `$${next}`, expands: true }
    }
    this.#pos++
    return { text: '$', expands: false }
  }

  #braceParameter(): Fragment {
    const close = this.#src.indexOf('}', this.#pos + 2)
    if (close === -1) refuse('unterminated parameter expansion')
    const inner = this.#src.slice(this.#pos + 2, close)
    if (!SIMPLE_PARAMETER.test(inner)) refuse('parameter expansion with operators')
    this.#pos = close + 1
    return { text: `\${${inner}}`, expands: true }
  }

  /** $'...': escapes are not decoded, so a word holding one counts as known only at run time. */
  #ansiCQuoted(): Fragment {
    const src = this.#src
    let end = this.#pos + 2
    while (end < src.length && src[end] !== "'") end += src[end] === '\\' ? 2 : 1
    if (end >= src.length) refuse('unterminated quote')
    const text = src.slice(this.#pos + 2, end)
    this.#pos = end + 1
    return { text, expands: text.includes('\\'), quoted: true }
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
