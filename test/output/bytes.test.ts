import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cutHeadToBytes, cutTailToBytes, cutToBytes, formatBytesBinary, formatBytesDecimal, utf8ByteLength } from '../../src/output/bytes.js'

/** Code points and lone surrogates, so that cuts meet every width (1 to 4 bytes, and 3 for U+FFFD). */
const mixedUnit = fc.oneof(
  fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
  fc.constantFrom('a', '\n', 'é', '日', '😀', '👍🏽', '\uD800', '\uDC00'),
)
const mixedText = fc.string({ unit: mixedUnit, maxLength: 60 })

function nextCodePoint(text: string, from: number): string {
  return (text.codePointAt(from) ?? 0) > 0xffff ? text.slice(from, from + 2) : text.slice(from, from + 1)
}

function previousCodePoint(text: string, end: number): string {
  const last = text.charCodeAt(end - 1)
  const before = text.charCodeAt(end - 2)
  const pair = last >= 0xdc00 && last <= 0xdfff && before >= 0xd800 && before <= 0xdbff
  return text.slice(pair ? end - 2 : end - 1, end)
}

describe('UTF-8 byte measures', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['日本語', 9],
    ['😀', 4],
    ['\uD800', 3],
  ])('R32 measures %j as %i bytes', (text, bytes) => {
    expect(utf8ByteLength(text)).toBe(bytes)
  })

  it.each([
    ['héllo', 2, 'head', 'h'],
    ['héllo', 3, 'head', 'hé'],
    ['日本語', 5, 'head', '日'],
    ['日本語', 8, 'tail', '本語'],
    ['😀😀', 7, 'head', '😀'],
    ['😀😀', 3, 'tail', ''],
    ['a😀', 4, 'tail', '😀'],
    ['\uD800a', 3, 'head', '\uD800'],
    ['abc', 0, 'head', ''],
    ['abc', 10, 'tail', 'abc'],
  ] as const)('R32 cuts %j to %i bytes from the %s as %j', (text, max, direction, expected) => {
    expect(cutToBytes(text, max, direction)).toBe(expected)
  })

  it('R32 keeps the longest prefix that fits, never splitting a code point (property)', () => {
    fc.assert(
      fc.property(mixedText, fc.nat(200), (text, max) => {
        const kept = cutHeadToBytes(text, max)
        expect(utf8ByteLength(kept)).toBeLessThanOrEqual(max)
        expect(text.startsWith(kept)).toBe(true)
        if (kept !== text) expect(utf8ByteLength(kept + nextCodePoint(text, kept.length))).toBeGreaterThan(max)
      }),
    )
  })

  it('R32 keeps the longest suffix that fits, never splitting a code point (property)', () => {
    fc.assert(
      fc.property(mixedText, fc.nat(200), (text, max) => {
        const kept = cutTailToBytes(text, max)
        expect(utf8ByteLength(kept)).toBeLessThanOrEqual(max)
        expect(text.endsWith(kept)).toBe(true)
        const start = text.length - kept.length
        if (kept !== text) expect(utf8ByteLength(previousCodePoint(text, start) + kept)).toBeGreaterThan(max)
      }),
    )
  })
})

describe('Byte size formats (A2)', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1 KB'],
    [1499, '1 KB'],
    [1500, '2 KB'],
    [2000, '2 KB'],
    [999_499, '999 KB'],
    [999_500, '1 MB'],
    [1_500_000, '2 MB'],
    [2_500_000_000, '3 GB'],
    [1e12, '1000 GB'],
  ])('R33 writes %i bytes in the generic envelope as %j', (bytes, text) => {
    expect(formatBytesDecimal(bytes)).toBe(text)
  })

  it.each([
    [0, '0 bytes'],
    [512, '512 bytes'],
    [1023, '1023 bytes'],
    [1024, '1KB'],
    [1536, '1.5KB'],
    [2048, '2KB'],
    [50_000, '48.8KB'],
    [1_048_576, '1MB'],
    [1.5 * 1024 ** 3, '1.5GB'],
  ])('R33 writes %i bytes for Bash and TaskOutput as %j', (bytes, text) => {
    expect(formatBytesBinary(bytes)).toBe(text)
  })
})
