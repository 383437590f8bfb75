import { describe, expect, it } from 'vitest'
import type { ModelContent } from '../../src/contracts/model-content.js'
import { appendHookContext, capHookContexts, formatHookContext, MAX_CALL_HOOK_CONTEXT_CHARS, MAX_HOOK_CONTEXT_CHARS } from '../../src/executor/hook-context.js'

describe('hook additional context', () => {
  it.each([
    [['lint failed'], '[Hook additional context]\n#1\nlint failed'],
    [['lint failed', 'tests\npassed'], '[Hook additional context]\n#1\nlint failed\n#2\ntests\npassed'],
    [['a', 'b', 'c'], '[Hook additional context]\n#1\na\n#2\nb\n#3\nc'],
  ])('R29 numbers %j one entry each', (contexts, expected) => {
    expect(formatHookContext(contexts)).toBe(expected)
    expect(appendHookContext('result text', contexts)).toBe(`result text\n\n${expected}`)
  })

  it('R29 returns the very same content when there is no context', () => {
    const blocks: ModelContent = [{ type: 'text', text: 'x' }]
    expect(appendHookContext(blocks, [])).toBe(blocks)
    expect(appendHookContext('x', [])).toBe('x')
  })

  it('R29 appends a text block, without the leading blank line, to block content and leaves the input alone', () => {
    const blocks: ModelContent = [
      { type: 'text', text: 'screenshot taken' },
      { type: 'image', mediaType: 'image/png', data: 'AAAA' },
    ]
    expect(appendHookContext(blocks, ['looks fine', 'retry later'])).toStrictEqual([
      { type: 'text', text: 'screenshot taken' },
      { type: 'image', mediaType: 'image/png', data: 'AAAA' },
      { type: 'text', text: '[Hook additional context]\n#1\nlooks fine\n#2\nretry later' },
    ])
    expect(blocks).toHaveLength(2)
  })

  it('R29 also follows an error text, so a failed result carries the diagnosis', () => {
    expect(appendHookContext('<tool_use_error>bad</tool_use_error>', ['path is outside the workspace'])).toBe(
      '<tool_use_error>bad</tool_use_error>\n\n[Hook additional context]\n#1\npath is outside the workspace',
    )
  })
})

describe('hook additional context limits', () => {
  it('keeps a context of exactly the per-hook limit whole', () => {
    const context = 'x'.repeat(MAX_HOOK_CONTEXT_CHARS)
    expect(capHookContexts([context])).toEqual([context])
  })

  it('cuts a longer context to the per-hook limit and says how much was cut', () => {
    const [capped] = capHookContexts(['a'.repeat(MAX_HOOK_CONTEXT_CHARS) + 'b'.repeat(5_000)])
    expect(capped).toBe('a'.repeat(MAX_HOOK_CONTEXT_CHARS) + '\n\n[Hook additional context truncated: originalChars=15000, cutChars=5000, maxCharsPerHook=10000]')
  })

  it('never splits a surrogate pair at the cut', () => {
    const [capped] = capHookContexts(['x'.repeat(MAX_HOOK_CONTEXT_CHARS - 1) + '🔒'.repeat(10)])
    expect(capped?.startsWith('x'.repeat(MAX_HOOK_CONTEXT_CHARS - 1) + '\n\n[Hook additional context truncated:')).toBe(true)
    expect(capped).toContain('cutChars=20,')
  })

  it('bounds the contexts of one call together, then replaces the rest by a notice', () => {
    const contexts = Array.from({ length: 8 }, (_, index) => String(index).repeat(MAX_HOOK_CONTEXT_CHARS - 1_000))
    const capped = capHookContexts(contexts)
    expect(capped.slice(0, 5)).toEqual(contexts.slice(0, 5))
    expect(capped[5]).toBe('5'.repeat(5_000) + '\n\n[Hook additional context truncated: originalChars=9000, cutChars=4000, maxCharsPerCall=50000]')
    expect(capped[6]).toBe('[Hook additional context truncated: originalChars=9000, cutChars=9000, maxCharsPerCall=50000]')
    expect(capped.join('').length).toBeLessThan(MAX_CALL_HOOK_CONTEXT_CHARS + 500)
  })

  it('returns the very same list when nothing is over a limit', () => {
    const contexts = ['short', 'also short']
    expect(capHookContexts(contexts)).toBe(contexts)
  })
})
