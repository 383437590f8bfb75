/**
 * @module A call's result as a record or a history entry carries it (CallResult): without the
 * texts the reply has elsewhere. `modelContent` is the record's own; an `output` equal to it
 * is left out (a Read's text), and so is the part of an `output.output` text that is it (a short
 * command's output, which the model reads as printed but for the last newline); a command's output text stops where its display's `output`
 * begins, and its omitted head and tail are given as a length. Storage and the events keep
 * the result whole: this is only what a reply shows.
 */
import { isDeepStrictEqual } from 'node:util'
import type { CallResult } from '../contracts/api.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import { omissionMarker } from '../tools/bash/captured-output.js'

/** The display kinds whose `output` is the end of the tool's `output.output`. */
const OUTPUT_DISPLAY_KINDS: ReadonlySet<string> = new Set(['bash_output', 'background_task_output'])

interface OmittedParts {
  readonly head: string
  readonly tail: string
  readonly bytes: number
}

type TextOutput = Record<string, unknown> & { output: string }

export function resultView(result: ToolExecutionResult): CallResult {
  const { modelContent, output, ...rest } = result
  const view: CallResult = rest
  if (output === undefined) return view
  if (isDeepStrictEqual(output, modelContent)) return { ...view, outputIsModelContent: true }
  if (hasTextOutput(output) && startsWithText(output.output, modelContent)) {
    return { ...view, output: { ...output, output: output.output.slice(modelContent.length) }, outputAfterModelContent: true }
  }
  const displayed = displayedOutput(result)
  if (displayed === undefined || !hasTextOutput(output)) return { ...view, output }
  const kept = withOmittedAsLength(output)
  if (displayed.length === 0 || !kept.output.endsWith(displayed)) return { ...view, output: kept }
  return { ...view, output: { ...kept, output: kept.output.slice(0, kept.output.length - displayed.length) }, outputRestInDisplay: true }
}

function displayedOutput(result: ToolExecutionResult): string | undefined {
  const display = result.display
  if (display === undefined || !OUTPUT_DISPLAY_KINDS.has(display.kind) || !('output' in display)) return undefined
  return typeof display.output === 'string' ? display.output : undefined
}

function startsWithText(text: string, modelContent: ToolExecutionResult['modelContent']): modelContent is string {
  return typeof modelContent === 'string' && modelContent.length > 0 && text.startsWith(modelContent)
}

function hasTextOutput(output: unknown): output is TextOutput {
  return typeof output === 'object' && output !== null && typeof (output as { output?: unknown }).output === 'string'
}

/**
 * `omitted.head` and `omitted.tail` are the two ends of `output` around the omission marker:
 * the reply gives the head's length instead. Left as it is when the text is not so made.
 */
function withOmittedAsLength(output: TextOutput): TextOutput {
  const omitted = output.omitted
  if (!isOmittedParts(omitted)) return output
  if (output.output !== omitted.head + omissionMarker(omitted.bytes) + omitted.tail) return output
  return { ...output, omitted: { bytes: omitted.bytes, headLength: omitted.head.length } }
}

function isOmittedParts(value: unknown): value is OmittedParts {
  if (typeof value !== 'object' || value === null) return false
  const parts = value as Record<string, unknown>
  return typeof parts.head === 'string' && typeof parts.tail === 'string' && typeof parts.bytes === 'number'
}
