import { describe, expect, it } from 'vitest'
import { timeOrderedUuid } from '../../src/sessions/time-ordered-id.js'

describe('timeOrderedUuid', () => {
  it('is a version 7 UUID whose first 48 bits are the Unix milliseconds', () => {
    const id = timeOrderedUuid(0x0193f1c27a4e)
    expect(id).toMatch(/^0193f1c2-7a4e-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('sorts as text in the order the ids were made, a millisecond apart', () => {
    const ids = [1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000].map((ms) => timeOrderedUuid(ms))
    expect([...ids].sort()).toEqual(ids)
  })

  it('differs between two ids of the same millisecond', () => {
    const now = Date.now()
    expect(new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(now))).size).toBe(1000)
  })
})
