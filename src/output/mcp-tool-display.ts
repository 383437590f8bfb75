/** @module The mcp_tool display (R38): the server's reply text, its head within 100 KB. */
import type { McpToolDisplay } from '../contracts/display.js'

const MCP_PREFIX = 'mcp__'
const MCP_SEPARATOR = '__'
const MCP_TEXT_MAX_BYTES = 100_000

/**
 * `mcp__<server>__<tool>`: the server ends at the first separator after the prefix; a name
 * not of that shape has no display.
 * @example mcpToolDisplay('mcp__gh__issue', { isError: false }, 'text')
 */
export function mcpToolDisplay(name: string, output: unknown, fullText: string): McpToolDisplay | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined
  const end = name.indexOf(MCP_SEPARATOR, MCP_PREFIX.length)
  if (end <= MCP_PREFIX.length || end + MCP_SEPARATOR.length === name.length) return undefined
  const text = headWithinBytes(fullText, MCP_TEXT_MAX_BYTES)
  return {
    kind: 'mcp_tool',
    server: name.slice(MCP_PREFIX.length, end),
    tool: name.slice(end + MCP_SEPARATOR.length),
    text,
    isError: typeof output === 'object' && output !== null && (output as { isError?: unknown }).isError === true,
    truncated: text.length < fullText.length,
  }
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
