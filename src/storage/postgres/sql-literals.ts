/**
 * @module A unit of work as one simple-protocol query text: each statement's values written
 * into it as literals. PostgreSQL runs such a text as one implicit transaction, so a failing
 * statement rolls back the whole unit and no BEGIN or COMMIT costs a round trip of its own.
 */
import { unstorableText } from './pg-errors.js'
import type { Statement } from './statements.js'

const PLACEHOLDER = /\$(\d+)/g

/** The statements joined into one text, in order. */
export function unitText(statements: readonly Statement[]): string {
  return statements.map(inlined).join(';\n')
}

/** The statement's text with each `$n` replaced by its value; the statements' own texts hold no `$` elsewhere. */
function inlined(statement: Statement): string {
  const values = statement.values ?? []
  return statement.text.replace(PLACEHOLDER, (_placeholder, index: string) => {
    const position = Number(index) - 1
    if (position >= values.length) throw new RangeError(`no value for $${index} of: ${statement.text}`)
    return literal(values[position])
  })
}

/** A value as an SQL literal. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  if (typeof value === 'number') return numberLiteral(value)
  if (typeof value === 'string') return textLiteral(value)
  // The statement casts it (`$1::text[]`), so that an empty one has a type too.
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]`
  throw new TypeError(`a ${typeof value} cannot be written into an SQL statement`)
}

// Parenthesized when negative, so that a minus after an operator cannot start a comment (`a--1`).
function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`${value} cannot be written into an SQL statement`)
  return value < 0 ? `(${value})` : String(value)
}

/**
 * The text quoted as pg.escapeLiteral quotes it (quotes doubled; with a backslash, backslashes
 * doubled in an E'' literal), so that it reads back as given whatever standard_conforming_strings
 * says; done with replaceAll, since escapeLiteral's loop takes most of a second for 4 MB.
 */
function textLiteral(value: string): string {
  // The protocol ends a query's text at a NUL, so one inside a literal would cut the unit short.
  if (value.includes('\u0000')) throw unstorableText('a text column cannot hold it')
  const quotesDoubled = value.replaceAll("'", "''")
  return value.includes('\\') ? ` E'${quotesDoubled.replaceAll('\\', '\\\\')}'` : `'${quotesDoubled}'`
}
