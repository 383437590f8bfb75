/**
 * @module Permission rules: `Tool` or `Tool(specifier)`. Bash takes a command pattern with
 * `*` anywhere (or Claude Code's `prefix:*`); Read/Write/Edit a path glob relative to the
 * workspace; WebFetch `domain:host`; MCP tools `mcp__server` or `mcp__server__tool`.
 */
export interface ParsedRule {
  /** The rule as written. */
  readonly source: string
  readonly tool: string
  readonly specifier: string | undefined
}

export class RuleError extends Error {
  override readonly name = 'RuleError'
}

const RULE = /^([A-Za-z0-9_*-]+)(?:\((.*)\))?$/s

export function parseRule(source: string): ParsedRule {
  const trimmed = source.trim()
  const match = RULE.exec(trimmed)
  if (match === null) throw new RuleError(`"${source}" is not a rule: write Tool or Tool(specifier)`)
  const tool = match[1] as string
  const specifier = match[2]
  if (specifier !== undefined && specifier.trim().length === 0) throw new RuleError(`"${source}" has an empty specifier: write ${tool} alone to match every call`)
  if (specifier !== undefined && tool.startsWith('mcp__')) throw new RuleError(`"${source}": MCP rules take no specifier (write mcp__server or mcp__server__tool)`)
  if (specifier !== undefined && tool === 'WebFetch' && !specifier.startsWith('domain:')) {
    throw new RuleError(`"${source}": WebFetch rules take domain:host`)
  }
  return { source: trimmed, tool, specifier: specifier?.trim() }
}

/** `*` anywhere matches any run of characters; `\*` is a literal star; everything else is literal. */
export function wildcardRegex(pattern: string, bareCommand = false): RegExp {
  const pieces = wildcardPieces(pattern).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  const last = pieces.length - 1
  // For commands, as in Claude Code, `git push *` also matches a bare `git push`.
  if (bareCommand && last > 0 && pieces[last] === '' && (pieces[last - 1] as string).endsWith(' ')) {
    const head = [...pieces.slice(0, last - 1), (pieces[last - 1] as string).slice(0, -1)]
    return new RegExp(`^${head.join('.*')}(?: .*)?$`, 's')
  }
  return new RegExp(`^${pieces.join('.*')}$`, 's')
}

/** The literal text between the unescaped stars of a pattern (one piece: no wildcard). */
export function wildcardPieces(pattern: string): string[] {
  const pieces = ['']
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string
    if (char === '\\' && pattern[index + 1] === '*') {
      pieces[pieces.length - 1] += '*'
      index++
    } else if (char === '*') {
      pieces.push('')
    } else {
      pieces[pieces.length - 1] += char
    }
  }
  return pieces
}

/** Text that a wildcard pattern matches literally: a grant for `rm *.log` must not allow `rm -rf / x.log`. */
export function escapeWildcards(text: string): string {
  return text.replace(/\*/g, '\\*')
}
