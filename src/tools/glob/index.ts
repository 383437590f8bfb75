/**
 * @module Glob {pattern, path?}: files whose path below `path` (default: the workspace)
 * matches a glob pattern, sorted by path, .gitignore respected, at most 1000 with a note of
 * how many were left out. SPEC A1: T/F/T/none (read-only, parallel); 100000 bytes, artifact,
 * head; 30000 ms.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import picomatch from 'picomatch'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type InputContext, type ToolEntry } from '../../contracts/tool-entry.js'
import { asToolFailure, displayPath, FileToolError, resolveToolPath } from '../workspace.js'
import { globFiles, type GlobMatches } from './glob-search.js'
import { searchRoot } from './search-root.js'

export const GLOB_TOOL_NAME = 'Glob'
export const MAX_GLOB_RESULTS = 1000

const GlobInputSchema = Type.Object(
  {
    pattern: Type.String({ minLength: 1, description: 'Glob pattern, e.g. "**/*.ts" or "src/*.{js,json}"' }),
    path: Type.Optional(Type.String({ minLength: 1, description: 'Directory to search in (default: the workspace)' })),
  },
  { additionalProperties: false },
)
export type GlobInput = Static<typeof GlobInputSchema>

const DESCRIPTION =
  'Finds files by glob pattern ("**/*.ts", "src/**/index.{js,ts}") below `path` (default: the workspace). ' +
  `Returns paths sorted by name, at most ${MAX_GLOB_RESULTS}; files ignored by .gitignore and the .git directory are left out.`

/** R13: an absolute pattern is split into `path` and a relative pattern, and `path` made absolute. */
export function resolveGlobInput(input: GlobInput, ctx: InputContext): GlobInput {
  if (input.path === undefined && path.isAbsolute(input.pattern)) {
    const { base, glob } = picomatch.scan(input.pattern)
    if (glob === '') return { pattern: path.basename(input.pattern), path: path.dirname(path.resolve(input.pattern)) }
    return { pattern: glob, path: path.resolve(base === '' ? '/' : base) }
  }
  return input.path === undefined ? input : { ...input, path: resolveToolPath(input.path, ctx.workspace) }
}

export function formatGlobMatches(matches: GlobMatches, workspace: string | undefined): string {
  if (matches.total === 0) return 'No files found'
  const lines = matches.paths.map((file) => displayPath(file, workspace))
  const left = matches.total - matches.paths.length
  if (left > 0) {
    lines.push(`\n(Showing the first ${matches.paths.length} of ${matches.total} files; ${left} left out. Use a more specific pattern or path.)`)
  }
  return lines.join('\n')
}

async function glob(input: GlobInput, ctx: ToolCallContext): Promise<string> {
  const { root, guard, ignoreBase } = await searchRoot(ctx, input.path)
  if (!(await stat(root)).isDirectory()) throw new FileToolError('TOOL_ERR_NOT_A_DIRECTORY', `${root} is a file, not a directory; give its directory as \`path\`.`)
  const matches = await globFiles({ root, pattern: input.pattern, guard, ignoreBase, signal: ctx.signal, cap: MAX_GLOB_RESULTS })
  return formatGlobMatches(matches, ctx.workspace)
}

/** @example registry.register(createGlobTool()) */
export function createGlobTool(): ToolEntry<GlobInput, string> {
  return defineTool({
    name: GLOB_TOOL_NAME,
    accessTarget: (input) => (input.path === undefined ? undefined : { kind: 'file', access: 'read', path: input.path }),
    description: DESCRIPTION,
    inputSchema: GlobInputSchema,
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    timeout: { kind: 'deadline', defaultMs: 30_000 },
    resultBudget: { maxInlineBytes: 100_000, maxModelBytes: 100_000, strategy: 'artifact', previewDirection: 'head' },
    resolveInput: resolveGlobInput,
    handler: (input, ctx) => asToolFailure(() => glob(input, ctx)),
  })
}
