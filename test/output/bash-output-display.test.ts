import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Value } from '@sinclair/typebox/value'
import { BASH_OUTPUT_MAX_BYTES, DisplaySchema } from '../../src/contracts/display.js'
import type { Serialization } from '../../src/contracts/result.js'
import { buildBashOutputDisplay } from '../../src/output/bash-output-display.js'

function serialization(over: Partial<Serialization> = {}): Serialization {
  return { truncated: false, originalBytes: 0, actualBytes: 0, strategy: 'inline', ...over }
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

describe('bash_output display', () => {
  it('R38 is absent when the output was neither truncated nor persisted', () => {
    const display = buildBashOutputDisplay({
      command: 'echo hi',
      output: 'hi\n',
      exitCode: 0,
      serialization: serialization(),
    })
    expect(display).toBeUndefined()
  })

  it.each([
    ['truncated', serialization({ truncated: true, strategy: 'truncate' }), true, undefined],
    ['persisted', serialization({ strategy: 'artifact', persistedPath: '/tmp/out.txt' }), false, '/tmp/out.txt'],
    ['truncated and persisted', serialization({ truncated: true, strategy: 'artifact', persistedPath: '/tmp/o' }), true, '/tmp/o'],
  ])('R38 is present when the output was %s', (_name, ser, truncated, persistedPath) => {
    const output = 'line 1\nline 2\n'
    const display = buildBashOutputDisplay({ command: 'make', output, exitCode: 2, serialization: ser })
    expect(display).toEqual({
      kind: 'bash_output',
      command: 'make',
      output,
      exitCode: 2,
      truncated,
      originalBytes: bytes(output),
      ...(persistedPath === undefined ? {} : { persistedPath }),
    })
    expect(Value.Check(DisplaySchema, display)).toBe(true)
  })

  it.each([
    ['ASCII', 'x'.repeat(200_000), 'x'.repeat(BASH_OUTPUT_MAX_BYTES)],
    ['3-byte characters on a boundary', '€'.repeat(50_001), '€'.repeat(50_000)],
    ['4-byte characters off a boundary', 'a' + '😀'.repeat(37_501), '😀'.repeat(37_500)],
    ['2-byte characters off a boundary', 'é'.repeat(75_001) + 'z', 'é'.repeat(74_999) + 'z'],
    ['lone surrogates (3 bytes each)', '\uDC00'.repeat(50_001), '\uDC00'.repeat(50_000)],
  ])('R38 keeps the 150000-byte tail of %s', (_name, output, expected) => {
    const display = buildBashOutputDisplay({
      command: 'cat big',
      output,
      exitCode: null,
      serialization: serialization({ persistedPath: '/tmp/big' }),
    })
    expect(display?.output).toBe(expected)
    expect(display?.truncated).toBe(true)
    expect(display?.originalBytes).toBe(bytes(output))
    expect(Value.Check(DisplaySchema, display)).toBe(true)
  })

  it('R38 keeps at most 150000 bytes, an exact suffix, never splitting a character', () => {
    const piece = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 })
    const pad = fc.string({ unit: 'binary', maxLength: 5 })
    fc.assert(
      fc.property(piece, pad, (unit, prefix) => {
        const output = prefix + unit.repeat(Math.ceil((BASH_OUTPUT_MAX_BYTES + 10) / bytes(unit)))
        const display = buildBashOutputDisplay({
          command: 'yes',
          output,
          exitCode: 0,
          serialization: serialization({ truncated: true }),
        })
        const kept = display?.output ?? ''
        expect(bytes(kept)).toBeLessThanOrEqual(BASH_OUTPUT_MAX_BYTES)
        // Maximal: one more code point (at most 4 bytes) would not have fitted.
        expect(bytes(kept)).toBeGreaterThan(BASH_OUTPUT_MAX_BYTES - 4)
        expect(output.endsWith(kept)).toBe(true)
        expect(Buffer.from(kept, 'utf8').toString('utf8')).toBe(kept)
        expect(display?.originalBytes).toBe(bytes(output))
      }),
      { numRuns: 40 },
    )
  })
})
