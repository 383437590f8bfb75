/**
 * @module The hash that binds an approval to the input it shows: SHA-256 (hex) of the input in
 * the JSON Canonicalization Scheme (RFC 8785: no spaces, object keys sorted by UTF-16 code
 * units, numbers and strings as ECMAScript writes them), so that a client can compute it from
 * the input it was shown, in any language, whatever order its JSON library keeps keys in.
 */
import { createHash } from 'node:crypto'

export function inputHashOf(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex')
}

/** The input as it is stored and sent (JSON: undefined fields dropped), canonicalized. */
export function canonicalJson(value: unknown): string {
  return canonical(JSON.parse(JSON.stringify(value ?? null)) as unknown)
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`
}
