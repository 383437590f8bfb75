/**
 * @module The UI display of a result (R38), chosen by tool name. A projection only: it is
 * never subject to the result budget, each kind limits itself, and it never fails the call.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { DisplaySchema, type Display } from '../contracts/display.js'
import type { Serialization } from '../contracts/result.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import { buildBashOutputDisplay } from './bash-output-display.js'
import { buildFileDiffDisplay } from './file-diff-display.js'

export interface DisplayInput {
  readonly toolName: string
  readonly entry?: ToolEntry | undefined
  readonly input: unknown
  readonly output: unknown
  /** The whole text output, before the result budget cut it for the model. */
  readonly fullText: string
  readonly serialization: Serialization
}

type DisplayBuilder = (args: DisplayInput) => Display | undefined
type Fields = Readonly<Record<string, unknown>>

const MCP_PREFIX = 'mcp__'
const MCP_SEPARATOR = '__'
const MCP_TEXT_MAX_BYTES = 100_000

const displayCheck = TypeCompiler.Compile(DisplaySchema)

const BUILDERS: ReadonlyMap<string, DisplayBuilder> = new Map([
  ['Bash', bashDisplay],
  ['Write', fileDiffDisplay],
  ['Edit', fileDiffDisplay],
])

/** True when `value` is one of the 16 display kinds, well formed. */
export function isDisplay(value: unknown): value is Display {
  return displayCheck.Check(value)
}

/**
 * The display of one result: the tool's own buildDisplay when it returns a valid display,
 * else the built-in one for the tool name, else undefined. Never throws.
 * @example createToolResultDisplay({ toolName: 'Bash', input, output, fullText, serialization })
 */
export function createToolResultDisplay(args: DisplayInput): Display | undefined {
  try {
    return ownDisplay(args) ?? builtinBuilder(args.toolName)?.(args)
  } catch {
    return undefined
  }
}

function ownDisplay(args: DisplayInput): Display | undefined {
  const own = args.entry?.buildDisplay?.({
    input: args.input,
    output: args.output,
    serialization: args.serialization,
    fullText: args.fullText,
  })
  return isDisplay(own) ? own : undefined
}

function builtinBuilder(toolName: string): DisplayBuilder | undefined {
  // The map answers every built-in name; only MCP names need the prefix test.
  return BUILDERS.get(toolName) ?? (toolName.startsWith(MCP_PREFIX) ? mcpToolDisplay : undefined)
}

function bashDisplay(args: DisplayInput): Display | undefined {
  const input = asFields(args.input)
  const output = asFields(args.output)
  const exitCode = output?.['exitCode']
  return buildBashOutputDisplay({
    command: typeof input?.['command'] === 'string' ? input['command'] : '',
    output: bashText(args.output, output) ?? args.fullText,
    exitCode: typeof exitCode === 'number' && Number.isInteger(exitCode) ? exitCode : null,
    serialization: args.serialization,
  })
}

function bashText(raw: unknown, output: Fields | undefined): string | undefined {
  if (typeof raw === 'string') return raw
  const text = output?.['output'] ?? output?.['stdout']
  return typeof text === 'string' ? text : undefined
}

function fileDiffDisplay(args: DisplayInput): Display | undefined {
  const output = asFields(args.output)
  const filePath = output?.['filePath']
  const oldContent = output?.['oldContent']
  const newContent = output?.['newContent']
  if (typeof filePath !== 'string' || typeof newContent !== 'string') return undefined
  if (oldContent !== null && typeof oldContent !== 'string') return undefined
  return buildFileDiffDisplay({ filePath, oldContent, newContent })
}

/** `mcp__<server>__<tool>`: the server ends at the first separator after the prefix. */
function mcpToolDisplay(args: DisplayInput): Display | undefined {
  const name = args.toolName
  const end = name.indexOf(MCP_SEPARATOR, MCP_PREFIX.length)
  if (end <= MCP_PREFIX.length || end + MCP_SEPARATOR.length === name.length) return undefined
  const text = headWithinBytes(args.fullText, MCP_TEXT_MAX_BYTES)
  return {
    kind: 'mcp_tool',
    server: name.slice(MCP_PREFIX.length, end),
    tool: name.slice(end + MCP_SEPARATOR.length),
    text,
    isError: asFields(args.output)?.['isError'] === true,
    truncated: text.length < args.fullText.length,
  }
}

function asFields(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null ? (value as Fields) : undefined
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, whole code points only. */
function headWithinBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text
  let end = 0
  let bytes = 0
  while (end < text.length) {
    const size = bytesOfCodePointAt(text, end)
    if (bytes + size > maxBytes) break
    bytes += size
    end += size === 4 ? 2 : 1
  }
  return text.slice(0, end)
}

/** UTF-8 bytes of the code point starting at `start`; a lone surrogate encodes as U+FFFD (3). */
function bytesOfCodePointAt(text: string, start: number): number {
  const unit = text.charCodeAt(start)
  if (unit < 0x80) return 1
  if (unit < 0x800) return 2
  if (unit >= 0xd800 && unit <= 0xdbff && start + 1 < text.length) {
    const low = text.charCodeAt(start + 1)
    if (low >= 0xdc00 && low <= 0xdfff) return 4
  }
  return 3
}
