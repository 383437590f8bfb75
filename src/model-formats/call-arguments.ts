/**
 * @module A function call's `arguments` JSON text read as the call's input. A text that is no
 * JSON stays the text: the call is scheduled with it and fails its schema check like any
 * invalid input (A4), so the model reads what went wrong and the other calls run.
 */

/** The parsed value, or the text itself when it is not JSON. An empty text is no arguments: `{}`. */
export function inputOfArguments(text: string): unknown {
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
