import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { escapeWildcards, parseRule, RuleError, wildcardPieces, wildcardRegex } from '../../src/permissions/rule.js'

describe('parseRule', () => {
  it.each([
    ['Bash', { tool: 'Bash', specifier: undefined }],
    ['  Bash(git status)  ', { source: 'Bash(git status)', tool: 'Bash', specifier: 'git status' }],
    ['Bash(echo (nested) parens)', { tool: 'Bash', specifier: 'echo (nested) parens' }],
    ['Bash(printf "a\nb")', { tool: 'Bash', specifier: 'printf "a\nb"' }],
    ['Edit(src/**)', { tool: 'Edit', specifier: 'src/**' }],
    ['WebFetch(domain:*.example.com)', { tool: 'WebFetch', specifier: 'domain:*.example.com' }],
    ['mcp__github__create_issue', { tool: 'mcp__github__create_issue', specifier: undefined }],
    ['my-tool', { tool: 'my-tool', specifier: undefined }],
  ])('R14 reads %j', (source, expected) => {
    expect(parseRule(source)).toMatchObject(expected)
  })

  it.each([
    ['', 'is not a rule'],
    ['Bash git status', 'is not a rule'],
    ['Bash(git status', 'is not a rule'],
    ['Bash(   )', 'has an empty specifier'],
    ['mcp__s(x)', 'MCP rules take no specifier'],
    ['WebFetch(https://example.com)', 'WebFetch rules take domain:host'],
  ])('R14 refuses %j saying why', (source, reason) => {
    expect(() => parseRule(source)).toThrow(RuleError)
    expect(() => parseRule(source)).toThrow(reason)
  })
})

describe('wildcard patterns', () => {
  it.each([
    ['npm run *', 'npm run test', true],
    ['npm run *', 'npm run', false],
    ['* --version', 'node --version', true],
    ['git * main', 'git push origin main', true],
    ['a.b', 'axb', false],
    ['(x)+[y]', '(x)+[y]', true],
    ['rm \\*.log', 'rm *.log', true],
    ['rm \\*.log', 'rm a.log', false],
    ['x\\y', 'x\\y', true],
    ['line*', 'line1\nline2', true],
  ])('R14 %j against %j -> %s', (pattern, text, expected) => {
    expect(wildcardRegex(pattern).test(text)).toBe(expected)
  })

  it.each([
    ['git push *', 'git push', true],
    ['git push *', 'git push origin', true],
    ['git push *', 'git pushx', false],
    ['ls *', 'lsof', false],
    ['ls*', 'lsof', true],
  ])('R14 as a command pattern, a trailing space and star also matches the bare command: %j against %j -> %s', (pattern, text, expected) => {
    expect(wildcardRegex(pattern, true).test(text)).toBe(expected)
    if (text === 'git push') expect(wildcardRegex(pattern).test(text)).toBe(false)
  })

  it('R14 splits on unescaped stars only', () => {
    expect(wildcardPieces('a*b\\*c*')).toEqual(['a', 'b*c', ''])
    expect(wildcardPieces('plain')).toEqual(['plain'])
    expect(wildcardPieces('a\\\\*')).toEqual(['a\\*'])
  })

  it('R14 an escaped text is a pattern that matches exactly that text and nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '*', '\\', ' ', '.', 'x') }), fc.string({ maxLength: 6 }), (text, other) => {
        const escaped = escapeWildcards(text)
        expect(wildcardPieces(escaped)).toEqual([text])
        expect(wildcardRegex(escaped).test(text)).toBe(true)
        if (other !== text) expect(wildcardRegex(escaped).test(other)).toBe(false)
      }),
    )
  })
})
