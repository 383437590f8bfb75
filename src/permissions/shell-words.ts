/**
 * @module One bash word: quotes and escapes removed, with what the rest of the line cannot
 * see in its text: whether it expands at run time, may become other words (globs, braces),
 * or assigns a variable. Substitutions that would run a command are refused.
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

export const OPERATOR_START = /[;&|<>()\n]/
export const BLANK = /[ \t]/
export const SIMPLE_PARAMETER = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/
const NAME_START = /[A-Za-z_]/
const NAME_CHAR = /[A-Za-z0-9_]/
const SPECIAL_PARAMETER = /[@*#?$!\-0-9]/
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*\+?$/
const DOUBLE_QUOTE_ESCAPES = '$`"\\\n'

/** Why a line is not read: the parser's only exception. */
export class Refusal extends Error {}

export function refuse(reason: string): never {
  throw new Refusal(reason)
}

interface Fragment {
  readonly text: string
  readonly expands: boolean
  readonly quoted?: boolean
}

class WordScanner {
  readonly #src: string
  #pos: number

  constructor(source: string, start: number) {
    this.#src = source
    this.#pos = start
  }

  word(): ShellWord {
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

/** Reads the word that starts at `start`; throws a Refusal for a substitution. */
export function scanWord(source: string, start: number): ShellWord {
  return new WordScanner(source, start).word()
}
