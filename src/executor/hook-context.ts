/** @module Hook additional context appended after a result's model content (R29, A4). */
import type { ModelContent } from '../contracts/model-content.js'

const HOOK_CONTEXT_HEADER = '[Hook additional context]'

/** `[Hook additional context]\n#1\n<ctx>\n#2\n<ctx>`, one numbered entry per context. */
export function formatHookContext(contexts: readonly string[]): string {
  let text = HOOK_CONTEXT_HEADER
  for (let index = 0; index < contexts.length; index++) text += `\n#${index + 1}\n${contexts[index]}`
  return text
}

/**
 * R29: appends the contexts after a blank line (string content) or as a trailing text block
 * (block content). With no contexts the content is returned as is.
 */
export function appendHookContext(content: ModelContent, contexts: readonly string[]): ModelContent {
  if (contexts.length === 0) return content
  const text = formatHookContext(contexts)
  if (typeof content === 'string') return `${content}\n\n${text}`
  return [...content, { type: 'text', text }]
}
