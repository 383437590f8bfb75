/**
 * @module What a unit of work's values must be before any of it is sent: a statement refused
 * by the client after the others went out would leave its transaction to commit without it.
 */
import { unstorableText } from './pg-errors.js'
import type { Statement } from './statements.js'

/** Throws for a value the database cannot take as given: a text holding NUL, a number not finite, or what no column holds. */
export function checkUnitValues(statements: readonly Statement[]): void {
  for (const statement of statements) for (const value of statement.values ?? []) checkValue(value)
}

function checkValue(value: unknown): void {
  if (value === null || value === undefined || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${value} cannot be written into an SQL statement`)
    return
  }
  if (typeof value === 'string') {
    // A text column cannot hold a NUL: refused here rather than by the database mid-unit.
    if (value.includes('\u0000')) throw unstorableText('a text column cannot hold it')
    return
  }
  if (Array.isArray(value)) {
    for (const item of value) checkValue(item)
    return
  }
  throw new TypeError(`a ${typeof value} cannot be written into an SQL statement`)
}
