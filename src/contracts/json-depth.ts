/**
 * @module How deep JSON may nest wherever it comes in: a request body, and the `arguments`
 * text of a model's function call, which a body carries as one string. JSON nested thousands
 * of levels deep parses fine but overflows the stack later, when it is stored or sent as an
 * event.
 */

/** Far deeper than any tool input needs, far below what JSON.stringify can recurse. */
export const MAX_JSON_DEPTH = 128

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** True when objects and arrays in `text` nest deeper than `limit`; brackets inside strings do not count. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) inString = true
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--
  }
  return false
}
