/**
 * @module A tool's input schema as the model APIs accept it: plain JSON (no TypeBox markers),
 * without `$schema` and `$id` (the APIs refuse or ignore them), and an object at the top. An
 * MCP server's schema may say nothing of its type: it takes an object all the same.
 */

export interface ObjectSchema {
  type: 'object'
  [keyword: string]: unknown
}

const DROPPED_AT_TOP: ReadonlySet<string> = new Set(['$schema', '$id', 'type'])

export function apiInputSchema(schema: unknown): ObjectSchema {
  const plain: unknown = schema === undefined ? {} : JSON.parse(JSON.stringify(schema))
  const kept: Record<string, unknown> = {}
  if (typeof plain === 'object' && plain !== null && !Array.isArray(plain)) {
    for (const [keyword, value] of Object.entries(plain)) if (!DROPPED_AT_TOP.has(keyword)) kept[keyword] = value
  }
  return { type: 'object', ...kept }
}

export interface ListedTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: unknown
}
