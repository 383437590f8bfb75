import { describe, expect, it } from 'vitest'
import type { ModelContent } from '../../src/contracts/model-content.js'
import { appendHookContext, formatHookContext } from '../../src/executor/hook-context.js'

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
