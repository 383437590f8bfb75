/** @module Hook additional context appended after a result's model content (R29, A4). */
import type { ModelContent } from '../contracts/model-content.js'

const HOOK_CONTEXT_HEADER = '[Hook additional context]'

/** One hook's context kept for the model; a hook may answer up to 1 MiB. */
export const MAX_HOOK_CONTEXT_CHARS = 10_000
/** All hook contexts of one call together, so that many hooks cannot add without bound. */
export const MAX_CALL_HOOK_CONTEXT_CHARS = 50_000

type HookContextLimit = 'maxCharsPerHook' | 'maxCharsPerCall'

/** `[Hook additional context]\n#1\n<ctx>\n#2\n<ctx>`, one numbered entry per context. */
export function formatHookContext(contexts: readonly string[]): string {
  let text = HOOK_CONTEXT_HEADER
  for (let index = 0; index < contexts.length; index++) text += `\n#${index + 1}\n${contexts[index]}`
  return text
}

function formatContextCutNotice(originalChars: number, cutChars: number, limit: HookContextLimit, limitChars: number): string {
  return `[Hook additional context truncated: originalChars=${originalChars}, cutChars=${cutChars}, ${limit}=${limitChars}]`
}

/** The first `maxChars` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
function cutHeadToChars(text: string, maxChars: number): string {
  const last = text.charCodeAt(maxChars - 1)
  const splitsPair = last >= 0xd800 && last <= 0xdbff
  return text.slice(0, splitsPair ? maxChars - 1 : maxChars)
}

/** `allowed` is below the per-hook limit only when the call's limit is what cuts. */
function cutContext(context: string, allowed: number): string {
  const byCall = allowed < MAX_HOOK_CONTEXT_CHARS
  const limit: HookContextLimit = byCall ? 'maxCharsPerCall' : 'maxCharsPerHook'
  const limitChars = byCall ? MAX_CALL_HOOK_CONTEXT_CHARS : MAX_HOOK_CONTEXT_CHARS
  const kept = allowed > 0 ? cutHeadToChars(context, allowed) : ''
  const notice = formatContextCutNotice(context.length, context.length - kept.length, limit, limitChars)
  return kept === '' ? notice : `${kept}\n\n${notice}`
}

/**
 * Each context within MAX_HOOK_CONTEXT_CHARS and their kept text together within
 * MAX_CALL_HOOK_CONTEXT_CHARS; a cut one ends with a notice of how much was cut. The very
 * same list when nothing is over a limit.
 */
export function capHookContexts(contexts: string[]): string[] {
  let room = MAX_CALL_HOOK_CONTEXT_CHARS
  let capped: string[] | undefined
  for (let index = 0; index < contexts.length; index++) {
    const context = contexts[index] ?? ''
    const allowed = Math.min(MAX_HOOK_CONTEXT_CHARS, room)
    const fits = context.length <= allowed
    room -= fits ? context.length : allowed
    if (fits && capped === undefined) continue
    capped ??= contexts.slice(0, index)
    capped.push(fits ? context : cutContext(context, allowed))
  }
  return capped ?? contexts
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
