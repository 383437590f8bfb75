/**
 * @module The UI display of a result (R38): what the tool's own entry builds. A projection
 * only: it is never subject to the result budget, each kind limits itself, and it never fails
 * the call.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { DisplaySchema, type Display } from '../contracts/display.js'
import type { Serialization } from '../contracts/result.js'
import type { ToolEntry } from '../contracts/tool-entry.js'

export interface DisplayInput {
  readonly entry?: ToolEntry | undefined
  readonly input: unknown
  readonly output: unknown
  /** The whole text output, before the result budget cut it for the model. */
  readonly fullText: string
  readonly serialization: Serialization
}

const displayCheck = TypeCompiler.Compile(DisplaySchema)

/** True when `value` is one of the 16 display kinds, well formed. */
export function isDisplay(value: unknown): value is Display {
  return displayCheck.Check(value)
}

/**
 * The display of one result: the entry's buildDisplay when it returns a valid display, else
 * undefined. Never throws.
 * @example createToolResultDisplay({ entry, input, output, fullText, serialization })
 */
export function createToolResultDisplay(args: DisplayInput): Display | undefined {
  try {
    const own = args.entry?.buildDisplay?.({
      input: args.input,
      output: args.output,
      serialization: args.serialization,
      fullText: args.fullText,
    })
    return isDisplay(own) ? own : undefined
  } catch {
    return undefined
  }
}
