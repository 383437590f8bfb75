/**
 * @module The longest run of literal text that every match of a regular expression must
 * contain, so that Grep can rule out a chunk of a file by searching its raw bytes for that
 * text before decoding it and running the expression. A line can only match when it contains
 * the text, and most chunks do not.
 *
 * The reading is conservative: only runs of printable ASCII at the top level of the pattern
 * count (outside groups, classes and lookarounds), a quantifier that allows zero repeats takes
 * its character out of the run, and a top-level alternation, an ignore-case pattern or
 * anything not understood gives no text at all.
 */

const BACKSLASH = '\\'
/** Characters that stand for themselves after a backslash (identity escapes). */
const IDENTITY_ESCAPE = /^[\\^$.|?*+()[\]{}/\-!"#%&',:;<=>@_`~ ]$/
const PLAIN = /^[\x20-\x7e]$/
const META = '^$.|?*+()[]{}\\'
const BRACE_QUANTIFIER = /^\{(\d+)(?:,(\d*))?\}/

/** Index after the class starting at `start` ('['): JavaScript ends a class at its first unescaped ']'. */
function skipClass(source: string, start: number): number {
  for (let index = start + 1; index < source.length; index++) {
    const char = source[index]
    if (char === BACKSLASH) index++
    else if (char === ']') return index + 1
  }
  return source.length
}

/** Index after the group starting at `start` ('('), classes and escapes inside skipped; -1 if unbalanced. */
function skipGroup(source: string, start: number): number {
  let depth = 0
  for (let index = start; index < source.length;) {
    const char = source[index]
    if (char === BACKSLASH) index += 2
    else if (char === '[') index = skipClass(source, index)
    else {
      if (char === '(') depth++
      else if (char === ')' && --depth === 0) return index + 1
      index++
    }
  }
  return -1
}

interface Quantifier {
  /** The quantified atom may be absent. */
  readonly optional: boolean
  /** Index after the quantifier (and its lazy `?`). */
  readonly end: number
}

/** The quantifier at `index`, if any. */
function quantifierAt(source: string, index: number): Quantifier | undefined {
  const char = source[index]
  let end: number
  let optional: boolean
  if (char === '?' || char === '*' || char === '+') {
    end = index + 1
    optional = char !== '+'
  } else if (char === '{') {
    const brace = BRACE_QUANTIFIER.exec(source.slice(index))
    if (brace === null) return undefined
    end = index + brace[0].length
    optional = Number(brace[1]) === 0
  } else {
    return undefined
  }
  return { optional, end: source[end] === '?' ? end + 1 : end }
}

/** The text every match of `source` (a valid, case-sensitive JavaScript pattern) contains, or undefined. */
export function requiredLiteral(source: string): string | undefined {
  const runs: string[] = []
  let run = ''
  const endRun = (): void => {
    if (run !== '') runs.push(run)
    run = ''
  }
  for (let index = 0; index < source.length;) {
    const char = source[index] as string
    let literal: string | undefined
    let next: number
    if (char === BACKSLASH) {
      const escaped = source[index + 1] ?? ''
      literal = IDENTITY_ESCAPE.test(escaped) ? escaped : undefined
      // Any other escape (\d, \b, \1, \x41, \u{...}, \p{...}) ends the run; its tail is skipped below.
      next = index + 2
      if (literal === undefined && !/^[a-zA-Z0-9]$/.test(escaped)) return undefined
    } else if (char === '|') {
      return undefined
    } else if (char === '(') {
      next = skipGroup(source, index)
      if (next === -1) return undefined
    } else if (char === '[') {
      next = skipClass(source, index)
    } else if (META.includes(char) || !PLAIN.test(char)) {
      // `.`, `^`, `$`, a stray quantifier or brace, a non-ASCII character: not part of a run.
      next = index + 1
    } else {
      literal = char
      next = index + 1
    }
    if (literal === undefined) {
      endRun()
      index = skipEscapeTail(source, char, next)
      const quantifier = quantifierAt(source, index)
      index = quantifier === undefined ? index : quantifier.end
      continue
    }
    const quantifier = quantifierAt(source, next)
    if (quantifier === undefined) {
      run += literal
      index = next
      continue
    }
    // A repeated character: required once unless the quantifier allows none; the run ends there.
    if (!quantifier.optional) run += literal
    endRun()
    index = quantifier.end
  }
  endRun()
  let longest: string | undefined
  for (const candidate of runs) if (longest === undefined || candidate.length > longest.length) longest = candidate
  return longest
}

/** After `\x`, `\u`, `\c`, `\p`, `\k`, digits: the index after the whole escape, so its tail is not read as literal text. */
function skipEscapeTail(source: string, char: string, next: number): number {
  if (char !== BACKSLASH) return next
  const letter = source[next - 1]
  const rest = source.slice(next)
  if (letter === 'x') return next + (/^[0-9a-fA-F]{2}/.test(rest) ? 2 : 0)
  if (letter === 'u') {
    const braced = /^\{[0-9a-fA-F]+\}/.exec(rest)
    if (braced !== null) return next + braced[0].length
    return next + (/^[0-9a-fA-F]{4}/.test(rest) ? 4 : 0)
  }
  if (letter === 'c') return next + (/^[a-zA-Z]/.test(rest) ? 1 : 0)
  if (letter === 'p' || letter === 'P') return next + (/^\{[^}]*\}/.exec(rest)?.[0].length ?? 0)
  if (letter === 'k') return next + (/^<[^>]*>/.exec(rest)?.[0].length ?? 0)
  if (letter !== undefined && /[0-9]/.test(letter)) return next + (/^[0-9]*/.exec(rest)?.[0].length ?? 0)
  return next
}
