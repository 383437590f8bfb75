/**
 * @module Where a JSON text stops being JSON, as a line and a column, so that a refusal can
 * point at the place without quoting the text (V8's own message quotes it, and gives no
 * position for an unexpected token). The scan follows the JSON grammar token by token, with
 * an explicit stack, so that no nesting depth can overflow it.
 */

// Control characters are not allowed unescaped in a JSON string.
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
const SCALAR = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null/y
const WHITESPACE = /[ \t\n\r]*/y

/** The offset of the first character that is not JSON, or -1 when the whole text is JSON. */
export function jsonErrorOffset(text: string): number {
  const closers: string[] = []
  let at = 0
  let expect: 'value' | 'key' | 'after' = 'value'
  const match = (pattern: RegExp): boolean => {
    pattern.lastIndex = at
    if (!pattern.test(text)) return false
    at = pattern.lastIndex
    return true
  }
  for (;;) {
    match(WHITESPACE)
    const char = text[at]
    if (expect === 'value') {
      if (char === '{' || char === '[') {
        closers.push(char === '{' ? '}' : ']')
        at++
        match(WHITESPACE)
        if (text[at] === closers.at(-1)) {
          closers.pop()
          at++
          expect = 'after'
        } else expect = char === '{' ? 'key' : 'value'
      } else if (match(STRING) || match(SCALAR)) expect = 'after'
      else return at
    } else if (expect === 'key') {
      if (!match(STRING)) return at
      match(WHITESPACE)
      if (text[at] !== ':') return at
      at++
      expect = 'value'
    } else if (closers.length === 0) return at < text.length ? at : -1
    else if (char === ',') {
      at++
      expect = closers.at(-1) === '}' ? 'key' : 'value'
    } else if (char === closers.at(-1)) {
      closers.pop()
      at++
    } else return at
  }
}

/** "line L, column C" (both from 1) of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const lineStart = before.lastIndexOf('\n') + 1
  const line = before.split('\n').length
  return `line ${line}, column ${offset - lineStart + 1}`
}
