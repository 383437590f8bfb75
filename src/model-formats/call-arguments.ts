/**
 * @module A function call's `arguments` JSON text read as the call's input. A text that is no
 * JSON, or JSON nested deeper than a request body may nest (the body's limit does not reach
 * into a string), stays the text: the call is scheduled with it and fails its schema check
 * like any invalid input (A4), so the model reads what went wrong and the other calls run.
 * Its size is bounded already: it is part of the body.
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../contracts/json-depth.js'

/** The parsed value, or the text itself when it is not JSON or nests too deep. An empty text is no arguments: `{}`. */
export function inputOfArguments(text: string): unknown {
  if (text.trim() === '') return {}
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return text
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
