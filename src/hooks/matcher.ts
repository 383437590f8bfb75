/** @module Hook matchers: `*`, a tool name, `A|B`, or a regular expression; compiled once. */

export type ToolMatcher = (toolName: string) => boolean

const PLAIN_NAMES = /^[A-Za-z0-9_\-|]+$/

const matchAll: ToolMatcher = function matchAll() {
  return true
}

export function compileMatcher(pattern: string | undefined): ToolMatcher {
  if (pattern === undefined || pattern === '' || pattern === '*') return matchAll
  if (PLAIN_NAMES.test(pattern)) {
    const names = new Set(pattern.split('|').filter((name) => name.length > 0))
    return function matchNames(toolName) {
      return names.has(toolName)
    }
  }
  const regex = new RegExp(`^(?:${pattern})$`)
  return function matchRegex(toolName) {
    return regex.test(toolName)
  }
}
