/** The text of a result a test expects to be plain text: blocks, a failure or nothing fail the test, showing what came. */
export function textOf(content: unknown): string {
  if (typeof content !== 'string') throw new Error(`expected text, got ${JSON.stringify(content)}`)
  return content
}
