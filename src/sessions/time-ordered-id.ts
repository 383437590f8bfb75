/**
 * @module UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made in
 * time order land at the right edge of their B-tree indexes, so a commit of many new
 * schedules touches one or two index pages instead of one per schedule.
 */
import { randomUUID } from 'node:crypto'

/** @example timeOrderedUuid() // '0193f1c2-7a4e-7b1d-9c3e-5f0a1b2c3d4e' */
export function timeOrderedUuid(now: number = Date.now()): string {
  const ms = now.toString(16).padStart(12, '0').slice(-12)
  // randomUUID draws from a pooled buffer (a fresh random read per id costs ten times more);
  // its variant bits already say RFC 9562, and only its version digit is replaced.
  const random = randomUUID()
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${random.slice(15)}`
}
