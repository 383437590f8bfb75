/**
 * @module The bash_output display (R38): only when the Bash output was truncated or persisted,
 * keeping the last BASH_OUTPUT_MAX_BYTES bytes, where a command's outcome usually shows.
 */
import { BASH_OUTPUT_MAX_BYTES, type BashOutputDisplay } from '../contracts/display.js'
import type { Serialization } from '../contracts/result.js'

export interface BashOutputArgs {
  readonly command: string
  readonly output: string
  readonly exitCode: number | null
  readonly serialization: Serialization
  readonly confined?: boolean | undefined
}

/**
 * Builds the bash_output display, or undefined when the model already saw the whole output.
 * @example buildBashOutputDisplay({ command: 'ls', output, exitCode: 0, serialization })
 */
export function buildBashOutputDisplay(args: BashOutputArgs): BashOutputDisplay | undefined {
  const { serialization } = args
  if (!serialization.truncated && serialization.persistedPath === undefined) return undefined
  const originalBytes = Buffer.byteLength(args.output, 'utf8')
  const output = originalBytes <= BASH_OUTPUT_MAX_BYTES ? args.output : tailWithinBytes(args.output, BASH_OUTPUT_MAX_BYTES)
  const display: BashOutputDisplay = {
    kind: 'bash_output',
    command: args.command,
    output,
    exitCode: args.exitCode,
    truncated: output.length < args.output.length || serialization.truncated,
    originalBytes,
  }
  if (serialization.persistedPath !== undefined) display.persistedPath = serialization.persistedPath
  if (args.confined !== undefined) display.confined = args.confined
  return display
}

/**
 * The longest suffix of `text` within `maxBytes` UTF-8 bytes. Walks code units from the end
 * so a surrogate pair is never split and the result stays an exact suffix of the input.
 */
function tailWithinBytes(text: string, maxBytes: number): string {
  let start = text.length
  let bytes = 0
  while (start > 0) {
    const size = bytesOfCodePointBefore(text, start)
    if (bytes + size > maxBytes) break
    bytes += size
    // Only a surrogate pair takes 4 bytes, and it spans 2 code units.
    start -= size === 4 ? 2 : 1
  }
  return text.slice(start)
}

/** UTF-8 bytes of the code point ending at `end`; a lone surrogate encodes as U+FFFD (3). */
function bytesOfCodePointBefore(text: string, end: number): number {
  const unit = text.charCodeAt(end - 1)
  if (unit < 0x80) return 1
  if (unit < 0x800) return 2
  if (unit >= 0xdc00 && unit <= 0xdfff && end >= 2) {
    const high = text.charCodeAt(end - 2)
    if (high >= 0xd800 && high <= 0xdbff) return 4
  }
  return 3
}
