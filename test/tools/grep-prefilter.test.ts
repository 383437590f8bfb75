import path from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { closeGrepPool } from '../../src/tools/grep/grep-pool.js'
import { compilePattern } from '../../src/tools/grep/grep-pattern.js'
import { createGrepTool } from '../../src/tools/grep/index.js'
import { requiredLiteral } from '../../src/tools/grep/required-literal.js'
import { InMemoryFileStateStore } from '../../src/tools/services.js'
import type { ToolCallContext } from '../../src/contracts/ports.js'
import { workspaceWith } from '../support/permission-tools.js'
import { textOf } from '../support/model-text.js'

afterAll(async () => {
  await closeGrepPool()
})

describe('requiredLiteral', () => {
  it.each([
    ['needle', 'needle'],
    ['foo\\d+barbaz', 'barbaz'],
    ['\\bword\\b', 'word'],
    ['^start.*end$', 'start'],
    ['a\\.b\\/c', 'a.b/c'],
    // Alternation anywhere at the top level: no branch is required.
    ['foo|barbaz', undefined],
    ['abc|', undefined],
    // Inside a group it is skipped with the group.
    ['(foo|bar)bazz', 'bazz'],
    // Optional characters and groups are not required.
    ['colou?r', 'colo'],
    ['abcd?', 'abc'],
    ['xy*z', 'x'],
    ['(?:prefix)?tail', 'tail'],
    ['ab{0}cd', 'cd'],
    ['ab{0,3}cd', 'cd'],
    ['a{2}bc', 'bc'],
    ['ab+c', 'ab'],
    ['ab+?cde', 'cde'],
    // Classes and lookarounds are not literal text; a `]` right after `[` closes a JS class.
    ['[abc]def', 'def'],
    ['[]]xyz', 'xyz'],
    ['[^]]abc', 'abc'],
    ['[\\]]abc', 'abc'],
    ['foo(?=bar)', 'foo'],
    ['(?<!no)yes', 'yes'],
    ['(?<name>ab)cd', 'cd'],
    // Escapes that are not the character itself.
    ['\\x41BCD', 'BCD'],
    ['\\u0041bcd', 'bcd'],
    ['a\\nbc', 'bc'],
    ['(a)\\1bc', 'bc'],
    ['\\p{L}xyz', 'xyz'],
    // Not ASCII: not taken (a quantifier after a surrogate pair applies to half of it).
    ['héllo', 'llo'],
    ['ab😀?cd', 'ab'],
    // A brace that is not a quantifier is not taken as text either.
    ['ab{,2}cd', 'ab'],
    ['.*', undefined],
    ['a?', undefined],
  ])('%s requires %s', (pattern, expected) => {
    expect(requiredLiteral(pattern)).toBe(expected)
  })

  it('no prefilter for a pattern that ignores case (-i or (?i)), nor for a text shorter than 2', () => {
    expect(compilePattern('needle\\d', true).prefilter).toBeUndefined()
    expect(compilePattern('(?i)needle\\d', false).prefilter).toBeUndefined()
    expect(compilePattern('needle\\d', false).prefilter).toBeDefined()
    expect(compilePattern('a.b', false).prefilter).toBeUndefined()
    expect(compilePattern('needle', false).prefilter).toBeUndefined() // a plain literal searches its bytes itself
  })

  it('every line a pattern matches contains the text it requires (random patterns and lines)', () => {
    const token = fc.constantFrom('a', 'b', 'c', 'ab', '.', '?', '*', '+', '|', '(', ')', '(?:', '(?=', '(?!', '[ab]', '[^a]', '\\d', '\\b', '{0}', '{2}', '{0,2}', '^', '$', ' ', '\\.', 'a?', 'bc')
    const patternArb = fc.array(token, { minLength: 1, maxLength: 10 }).map((tokens) => tokens.join(''))
    const lineArb = fc.array(fc.constantFrom('a', 'b', 'c', ' ', '.', '1'), { maxLength: 14 }).map((chars) => chars.join(''))
    let checked = 0
    fc.assert(
      fc.property(patternArb, fc.array(lineArb, { minLength: 1, maxLength: 30 }), (pattern, lines) => {
        let regex: RegExp
        try {
          regex = new RegExp(pattern, 'm')
        } catch {
          return
        }
        const required = requiredLiteral(pattern)
        if (required === undefined) return
        checked++
        for (const line of lines) if (regex.test(line)) expect(line).toContain(required)
      }),
      { numRuns: 3000 },
    )
    expect(checked).toBeGreaterThan(300)
  })
})

describe('Grep with a prefilter', () => {
  const lines = ['color: red', 'colour: blue', 'colr', 'prefixtail', 'tail only', 'abbbcd', 'acd', 'foo1bar', 'foobar', 'xyz]', 'the word here', 'swordfish', 'xx]yz', '']
  // Each file holds the lines in another order, and some lines in none: chunks with and without the texts.
  const files: Record<string, string> = {}
  for (let index = 0; index < 12; index++)
    files[`f${index}.txt`] = lines
      .filter((_, line) => (line * 7 + index) % 3 !== 0)
      .map((line) => `${line}\n`)
      .join('')

  function oracle(pattern: string, flags: string): string[] {
    const regex = new RegExp(pattern, flags)
    const out: string[] = []
    for (const name of Object.keys(files).sort()) {
      const text = files[name] as string
      text
        .split('\n')
        .slice(0, -1)
        .forEach((line, index) => {
          if (regex.test(line)) out.push(`${name}:${index + 1}:${line}`)
        })
    }
    return out
  }

  it.each([
    ['colou?r', 'm'],
    ['(?:prefix)?tail', 'm'],
    ['ab+cd', 'm'],
    ['ab*cd', 'm'],
    ['foo\\d?bar', 'm'],
    ['foo|colr', 'm'],
    ['\\bword\\b', 'm'],
    ['[^]]yz', 'm'],
    ['^tail', 'm'],
    ['TAIL', 'mi'],
  ])('%s finds the same lines as the expression alone', async (pattern, flags) => {
    const { workspace } = await workspaceWith('grep-prefilter', files)
    const ctx = {
      callId: 'c',
      sessionId: 's',
      toolName: 'Grep',
      signal: new AbortController().signal,
      workspace,
      permissionMode: 'default',
      permission: 'none',
      progress: () => undefined,
      services: { fileState: new InMemoryFileStateStore() },
    } as unknown as ToolCallContext
    const input = { pattern, path: path.join(workspace), output_mode: 'content' as const, '-n': true, '-i': flags.includes('i') }
    const output = textOf(await createGrepTool().handler(input, ctx))
    const expected = oracle(pattern, flags)
    expect(expected.length).toBeGreaterThan(0)
    expect(output.split('\n')).toEqual(expected)
  })
})
