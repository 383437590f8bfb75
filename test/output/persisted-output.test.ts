import { describe, expect, it } from 'vitest'
import { formatPersistedOutputEnvelope, previewFirstChars } from '../../src/output/persisted-output.js'

const a = (n: number): string => 'a'.repeat(n)
const b = (n: number): string => 'b'.repeat(n)

describe('Preview of a persisted output (R34)', () => {
  it.each([
    ['shorter than 2000 characters', a(10), a(10), false],
    ['exactly 2000 characters', a(2000), a(2000), false],
    ['2001 characters', a(2001), a(2000), true],
    ['a newline in the first half', `${a(500)}\n${b(3000)}`, `${a(500)}\n${b(1499)}`, true],
    ['a newline exactly at index 1000', `${a(1000)}\n${b(3000)}`, `${a(1000)}\n${b(999)}`, true],
    ['a newline at index 1001', `${a(1001)}\n${b(3000)}`, a(1001), true],
    ['a newline in the second half', `${a(1500)}\n${b(1000)}`, a(1500), true],
    ['the last of several newlines in the second half', `${a(1200)}\n${b(300)}\n${b(3000)}`, `${a(1200)}\n${b(300)}`, true],
    ['a newline as the 2000th character', `${a(1999)}\n${b(1)}`, a(1999), true],
    ['a newline after the 2000th character', `${a(2000)}\n`, a(2000), true],
    ['a short text ending in a newline', 'x\n', 'x\n', false],
  ])('R34 with %s', (_case, content, preview, hasMore) => {
    expect(previewFirstChars(content)).toEqual({ preview, hasMore })
  })

  it('R34 counts characters as code points and never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(2001)
    const { preview, hasMore } = previewFirstChars(emoji)
    expect(preview).toBe('😀'.repeat(2000))
    expect(hasMore).toBe(true)
    expect(previewFirstChars('😀'.repeat(2000))).toEqual({ preview: '😀'.repeat(2000), hasMore: false })
  })

  it('R34 places the newline threshold by code points, not UTF-16 units', () => {
    // 600 emoji are 1200 code units but only 600 characters: the newline at character 600 is in the first half.
    const content = `${'😀'.repeat(600)}\n${b(3000)}`
    expect(previewFirstChars(content).preview).toBe(`${'😀'.repeat(600)}\n${b(1399)}`)
  })

  it('R34 honours a custom preview length', () => {
    expect(previewFirstChars('abcdef\nghij', 10)).toEqual({ preview: 'abcdef', hasMore: true })
  })
})

describe('Persisted-output envelope (R33, A2)', () => {
  it('R33 cuts the preview at 2000 characters when the newline is in the first half', () => {
    const content = `${a(500)}\n${b(3000)}`
    const envelope = formatPersistedOutputEnvelope({ content, originalBytes: 3501, persistedPath: '/data/cli/artifacts/s1/c1-tool-result-x.txt' })
    expect(envelope).toBe(
      '<persisted-output>\n' +
        'Output too large (4 KB). Full output saved to: /data/cli/artifacts/s1/c1-tool-result-x.txt\n' +
        '\n' +
        'Preview (first 2 KB):\n' +
        `${a(500)}\n${b(1499)}\n` +
        '...\n' +
        '</persisted-output>',
    )
  })

  it('R33 cuts the preview at the newline when it lies in the second half', () => {
    const content = `${a(1500)}\n${b(1000)}`
    const envelope = formatPersistedOutputEnvelope({ content, originalBytes: 2501, persistedPath: '/p/out.txt' })
    expect(envelope).toBe('<persisted-output>\n' + 'Output too large (3 KB). Full output saved to: /p/out.txt\n' + '\n' + 'Preview (first 2 KB):\n' + `${a(1500)}\n` + '...\n' + '</persisted-output>')
  })

  it('R33 writes no ellipsis when the preview consumes the whole content', () => {
    const envelope = formatPersistedOutputEnvelope({ content: a(2000), originalBytes: 2000, persistedPath: '/p/out.txt' })
    expect(envelope).toBe('<persisted-output>\n' + 'Output too large (2 KB). Full output saved to: /p/out.txt\n' + '\n' + 'Preview (first 2 KB):\n' + `${a(2000)}\n` + '</persisted-output>')
  })

  it('R33 writes sizes under 1000 bytes as B', () => {
    const envelope = formatPersistedOutputEnvelope({ content: 'tiny', originalBytes: 999, persistedPath: '/p' })
    expect(envelope).toBe('<persisted-output>\nOutput too large (999 B). Full output saved to: /p\n\nPreview (first 2 KB):\ntiny\n</persisted-output>')
  })
})
