/**
 * @module Whether a sed script only prints (SPEC A6). A small grammar of the commands that
 * read and print; `w`, `W`, `e`, the `w` and `e` flags of `s`, and anything unknown are not
 * read-only.
 */

const SIMPLE_COMMANDS = 'pPdDnNgGhHxz=lFqQ{}'
const LINE_COMMANDS = 'aicrR:btTv#'
const SAFE_S_FLAGS = /[gpiImM0-9]/

class SedReader {
  readonly #script: string
  #pos = 0

  constructor(script: string) {
    this.#script = script
  }

  readOnly(): boolean {
    const script = this.#script
    while (this.#pos < script.length) {
      const ch = script[this.#pos] ?? ''
      if (/[\s;]/.test(ch)) {
        this.#pos++
        continue
      }
      if (!this.#address()) return false
      if (!this.#command()) return false
    }
    return true
  }

  /** Up to two addresses (`3`, `$`, `/re/`, `\cREc`, `first~step`, `addr,+N`) and a `!`. */
  #address(): boolean {
    if (!this.#oneAddress()) return false
    if (this.#script[this.#pos] === ',') {
      this.#pos++
      if (!this.#oneAddress()) return false
    }
    this.#skipBlanks()
    if (this.#script[this.#pos] === '!') this.#pos++
    this.#skipBlanks()
    return true
  }

  #oneAddress(): boolean {
    const script = this.#script
    const ch = script[this.#pos] ?? ''
    if (/[0-9+~]/.test(ch)) {
      while (/[0-9~+]/.test(script[this.#pos] ?? '')) this.#pos++
    } else if (ch === '$') {
      this.#pos++
    } else if (ch === '/' || ch === '\\') {
      if (ch === '\\') this.#pos++
      if (!this.#delimited(script[this.#pos] ?? '')) return false
      while (/[IM]/.test(script[this.#pos] ?? '')) this.#pos++
    }
    return true
  }

  #command(): boolean {
    const script = this.#script
    const ch = script[this.#pos] ?? ''
    if (ch === '') return false
    this.#pos++
    if (SIMPLE_COMMANDS.includes(ch)) {
      while (/[0-9]/.test(script[this.#pos] ?? '')) this.#pos++
      return true
    }
    if (LINE_COMMANDS.includes(ch)) {
      this.#skipLine()
      return true
    }
    if (ch === 's') return this.#substitute()
    if (ch === 'y') return this.#parts(2)
    return false
  }

  #substitute(): boolean {
    if (!this.#parts(2)) return false
    while (this.#pos < this.#script.length && SAFE_S_FLAGS.test(this.#script[this.#pos] ?? '')) this.#pos++
    const next = this.#script[this.#pos]
    return next === undefined || /[\s;}]/.test(next)
  }

  /** After the command letter: a delimiter, then `count` parts each closed by it. */
  #parts(count: number): boolean {
    const delimiter = this.#script[this.#pos] ?? ''
    if (delimiter === '' || delimiter === '\n' || delimiter === '\\') return false
    for (let part = 0; part < count; part++) {
      if (!this.#delimited(delimiter)) return false
      this.#pos--
    }
    this.#pos++
    return true
  }

  /** At an opening delimiter: moves past the matching unescaped closing one. */
  #delimited(delimiter: string): boolean {
    const script = this.#script
    let at = this.#pos + 1
    while (at < script.length && script[at] !== delimiter) at += script[at] === '\\' ? 2 : 1
    if (at >= script.length) return false
    this.#pos = at + 1
    return true
  }

  /** Stops at `;` too: where sed reads on, the rest is only checked more strictly. */
  #skipLine(): void {
    while (this.#pos < this.#script.length && !/[\n;]/.test(this.#script[this.#pos] ?? '')) {
      this.#pos += this.#script[this.#pos] === '\\' ? 2 : 1
    }
  }

  #skipBlanks(): void {
    while (/[ \t]/.test(this.#script[this.#pos] ?? '')) this.#pos++
  }
}

/**
 * @example sedScriptIsReadOnly('s/a/b/g') // true
 * @example sedScriptIsReadOnly('s/a/b/w out.txt') // false
 */
export function sedScriptIsReadOnly(script: string): boolean {
  return new SedReader(script).readOnly()
}
