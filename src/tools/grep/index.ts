/**
 * @module Grep {pattern, path?, glob?, type?, output_mode?, -i?, -n?, -A?, -B?, -C?,
 * head_limit?}: a JavaScript regular expression over the files below `path` (default: the
 * workspace), .gitignore respected, binaries skipped, results sorted by path and capped with
 * a note. SPEC A1: T/F/T/none (read-only, parallel); 20000 bytes, artifact, head; 30000 ms.
 */
import { stat } from 'node:fs/promises'
import { Type, type Static } from '@sinclair/typebox'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type InputContext, type ToolEntry } from '../../contracts/tool-entry.js'
import { searchRoot } from '../glob/search-root.js'
import { asToolFailure, displayPath, resolveToolPath } from '../workspace.js'
import { compilePattern, fileFilter } from './grep-pattern.js'
import { formatGrepOutput, GrepOutput } from './grep-output.js'
import type { OutputMode } from './output-mode.js'
import { grepFile, grepTree, type GrepSearch } from './grep-search.js'

export const GREP_TOOL_NAME = 'Grep'
/** Without head_limit, at most this many entries are kept; the rest are counted. */
export const DEFAULT_GREP_CAPS: Readonly<Record<OutputMode, number>> = {
  content: 20_000,
  files_with_matches: 1000,
  count: 1000,
}

const Count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }))

const GrepInputSchema = Type.Object(
  {
    pattern: Type.String({ minLength: 1, description: 'JavaScript regular expression, matched per line' }),
    path: Type.Optional(Type.String({ minLength: 1, description: 'File or directory to search (default: the workspace)' })),
    glob: Type.Optional(Type.String({ minLength: 1, description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.{js,jsx}"' })),
    type: Type.Optional(Type.String({ minLength: 1, description: 'Only files of this type, e.g. "ts", "py", "rust"' })),
    output_mode: Type.Optional(
      Type.Union([Type.Literal('content'), Type.Literal('files_with_matches'), Type.Literal('count')], {
        description: 'content: matching lines; files_with_matches (default): file paths; count: matches per file',
      }),
    ),
    '-i': Type.Optional(Type.Boolean({ description: 'Ignore case' })),
    '-n': Type.Optional(Type.Boolean({ description: 'Line numbers in content mode (default true)' })),
    '-A': Count('Lines of context after each match (content mode)'),
    '-B': Count('Lines of context before each match (content mode)'),
    '-C': Count('Lines of context before and after each match (content mode)'),
    head_limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Stop after this many lines, files or counts' })),
  },
  { additionalProperties: false },
)
export type GrepInput = Static<typeof GrepInputSchema>

const DESCRIPTION =
  'Searches file contents with a JavaScript regular expression, line by line, below `path` (default: the workspace). ' +
  'output_mode files_with_matches (default) lists files, content shows `path:line:text` (with -A/-B/-C context), count gives matches per file. ' +
  'Filter files with `glob` or `type`; .gitignore is respected, binary files are skipped, results are sorted by path.'

function resolveGrepInput(input: GrepInput, ctx: InputContext): GrepInput {
  return input.path === undefined ? input : { ...input, path: resolveToolPath(input.path, ctx.workspace) }
}

function searchOf(input: GrepInput, ctx: ToolCallContext, guard: GrepSearch['guard']): GrepSearch {
  const mode = input.output_mode ?? 'files_with_matches'
  const content = mode === 'content'
  const cap = input.head_limit ?? DEFAULT_GREP_CAPS[mode]
  const ignoreCase = input['-i'] === true
  // Compiled here too, so that a bad pattern fails before any file is opened.
  compilePattern(input.pattern, ignoreCase)
  return {
    owner: ctx.sessionId,
    guard,
    pattern: input.pattern,
    ignoreCase,
    mode,
    lineNumbers: input['-n'] ?? true,
    before: content ? (input['-B'] ?? input['-C'] ?? 0) : 0,
    after: content ? (input['-A'] ?? input['-C'] ?? 0) : 0,
    output: new GrepOutput(cap, input.head_limit !== undefined),
    signal: ctx.signal,
  }
}

async function grep(input: GrepInput, ctx: ToolCallContext): Promise<string> {
  const { root, guard, ignoreBase } = await searchRoot(ctx, input.path)
  const search = searchOf(input, ctx, guard)
  const filter = fileFilter(input.glob, input.type)
  const rootLabel = displayPath(root, ctx.workspace)
  if ((await stat(root)).isFile()) {
    await grepFile(search, root, rootLabel)
  } else {
    await grepTree(search, { root, ignoreBase, filter, labelPrefix: rootLabel === '.' ? '' : `${rootLabel}/` })
  }
  return formatGrepOutput(search.output, search.mode)
}

/** @example registry.register(createGrepTool()) */
export function createGrepTool(): ToolEntry<GrepInput, string> {
  return defineTool({
    name: GREP_TOOL_NAME,
    accessTarget: (input) => (input.path === undefined ? undefined : { kind: 'file', access: 'read', path: input.path }),
    description: DESCRIPTION,
    inputSchema: GrepInputSchema,
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    timeout: { kind: 'deadline', defaultMs: 30_000 },
    resultBudget: { maxInlineBytes: 20_000, maxModelBytes: 20_000, strategy: 'artifact', previewDirection: 'head' },
    resolveInput: resolveGrepInput,
    handler: (input, ctx) => asToolFailure(() => grep(input, ctx)),
  })
}
