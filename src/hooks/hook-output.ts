/**
 * @module A hook's answer as JSON, read the way Claude Code writes it: fields at the top
 * level, or inside `hookSpecificOutput` (permissionDecisionReason, a PermissionRequest
 * `decision: {behavior, message}`), and the older `decision: approve|block`.
 */
import type { HookEventName, HookOutput } from '../contracts/ports.js'

type Json = Record<string, unknown>

const asRecord = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined)
const asString = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined)

export function normalizeHookOutput(event: HookEventName, raw: unknown): HookOutput {
  const top = asRecord(raw) ?? {}
  const specific = asRecord(top.hookSpecificOutput) ?? {}
  const merged: Json = { ...top, ...specific }
  const output: { -readonly [K in keyof HookOutput]: HookOutput[K] } = {}
  const reason = asString(merged.permissionDecisionReason) ?? asString(merged.reason) ?? asString(merged.stopReason)
  if (reason !== undefined) output.reason = reason
  const context = asString(merged.additionalContext)
  if (context !== undefined) output.additionalContext = context
  if (merged.updatedInput !== undefined) output.updatedInput = merged.updatedInput
  const permissionDecision = decisionOf(merged.permissionDecision) ?? legacyDecision(event, top.decision)
  if (permissionDecision !== undefined && event === 'PreToolUse') output.permissionDecision = permissionDecision
  const decision = eventDecision(event, merged)
  if (decision !== undefined) output.decision = decision
  const message = asString(merged.message) ?? asString(asRecord(merged.decision)?.message)
  if (message !== undefined) output.message = message
  return output
}

function decisionOf(value: unknown): 'allow' | 'deny' | 'ask' | undefined {
  return value === 'allow' || value === 'deny' || value === 'ask' ? value : undefined
}

/** Claude Code's older PreToolUse answer: approve -> allow, block -> deny. */
function legacyDecision(event: HookEventName, value: unknown): 'allow' | 'deny' | undefined {
  if (event !== 'PreToolUse') return undefined
  if (value === 'approve') return 'allow'
  if (value === 'block') return 'deny'
  return undefined
}

function eventDecision(event: HookEventName, merged: Json): HookOutput['decision'] {
  const value = merged.decision
  if (event === 'PermissionRequest') {
    const behavior = asRecord(value)?.behavior ?? value
    if (behavior === 'allow' || behavior === 'approve') return 'allow'
    if (behavior === 'deny' || behavior === 'block') return 'deny'
    return undefined
  }
  if (event === 'PostToolUse' && value === 'block') return 'block'
  return undefined
}

/** Exit code 2 of a command hook: block, with stderr as the reason, in each event's terms. */
export function blockingOutput(event: HookEventName, reason: string): HookOutput {
  switch (event) {
    case 'PreToolUse':
      return { permissionDecision: 'deny', reason }
    case 'PermissionRequest':
      return { decision: 'deny', message: reason }
    case 'PostToolUse':
      return { decision: 'block', reason }
    case 'PostToolUseFailure':
      return { additionalContext: reason }
  }
}
