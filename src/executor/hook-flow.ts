/**
 * @module Hook points of one call and how their answers merge (R14, R16, R24, R29, A11).
 * The runner port runs the hooks; the decision semantics live here.
 */
import type { EventSink } from '../contracts/events.js'
import type { HookEventName, HookOutput, HookPayload, HookRunner } from '../contracts/ports.js'

export const PRE_TOOL_USE_ALLOW_REASON = 'Tool was allowed by PreToolUse hook'
export const PRE_TOOL_USE_ASK_REASON = 'Tool requires approval by PreToolUse hook'
export const PRE_TOOL_USE_BLOCK_REASON = 'Blocked by PreToolUse hook'
export const PERMISSION_HOOK_DENY_REASON = 'Denied by PermissionRequest hook'
export const PERMISSION_HOOK_ALLOW_REASON = 'Allowed by PermissionRequest hook'
export const POST_TOOL_USE_BLOCK_REASON = 'Blocked by PostToolUse hook'

export interface PreToolUseOutcome {
  readonly decision: 'allow' | 'deny' | 'ask' | undefined
  readonly reason: string | undefined
  readonly updatedInput: unknown
  readonly hasUpdatedInput: boolean
  readonly contexts: readonly string[]
  /** The hook whose decision won, for the PermissionResolved event. */
  readonly hook?: string | undefined
}

export interface PermissionHookOutcome {
  readonly decision: 'allow' | 'deny' | undefined
  readonly reason: string | undefined
  readonly hook?: string | undefined
}

export interface PostHookOutcome {
  readonly blockReason: string | undefined
  readonly contexts: readonly string[]
}

const EMPTY_CONTEXTS: readonly string[] = Object.freeze([])
export const NO_PRE_TOOL_USE: PreToolUseOutcome = Object.freeze({
  decision: undefined,
  reason: undefined,
  updatedInput: undefined,
  hasUpdatedInput: false,
  contexts: EMPTY_CONTEXTS,
})
export const NO_POST_HOOK: PostHookOutcome = Object.freeze({ blockReason: undefined, contexts: EMPTY_CONTEXTS })

const RANK = { allow: 1, ask: 2, deny: 3 } as const

export interface HookCall {
  readonly hooks: HookRunner | undefined
  readonly payload: HookPayload
  readonly signal: AbortSignal
  readonly emit: EventSink | undefined
}

async function runHooks(event: HookEventName, call: HookCall): Promise<readonly HookOutput[] | undefined> {
  const hooks = call.hooks
  if (hooks === undefined || !hooks.has(event, call.payload.toolName)) return undefined
  try {
    return await hooks.run(event, { ...call.payload, hookEventName: event }, call.signal, call.emit)
  } catch {
    // A broken hook runner is a hook error, never a failed call; its runner reports it.
    return undefined
  }
}

/** A11: deny beats ask beats allow; contexts concatenate in order; the last updatedInput wins. */
export function mergePreToolUse(outputs: readonly HookOutput[]): PreToolUseOutcome {
  let decision: PreToolUseOutcome['decision']
  let reason: string | undefined
  let hook: string | undefined
  let updatedInput: unknown
  let hasUpdatedInput = false
  for (const output of outputs) {
    const next = output.permissionDecision
    if (next !== undefined && (decision === undefined || RANK[next] > RANK[decision])) {
      decision = next
      reason = output.reason
      hook = output.hook
    }
    if (output.updatedInput !== undefined) {
      updatedInput = output.updatedInput
      hasUpdatedInput = true
    }
  }
  return { decision, reason: reason ?? defaultPreReason(decision), updatedInput, hasUpdatedInput, contexts: contextsOf(outputs), hook }
}

function defaultPreReason(decision: PreToolUseOutcome['decision']): string | undefined {
  if (decision === 'allow') return PRE_TOOL_USE_ALLOW_REASON
  if (decision === 'ask') return PRE_TOOL_USE_ASK_REASON
  if (decision === 'deny') return PRE_TOOL_USE_BLOCK_REASON
  return undefined
}

export function mergePermissionRequest(outputs: readonly HookOutput[]): PermissionHookOutcome {
  let decision: PermissionHookOutcome['decision']
  let reason: string | undefined
  let hook: string | undefined
  for (const output of outputs) {
    const next = output.decision === 'allow' || output.decision === 'deny' ? output.decision : undefined
    if (next === undefined || decision === 'deny') continue
    decision = next
    reason = output.message ?? output.reason
    hook = output.hook
  }
  if (decision === undefined) return { decision, reason }
  return { decision, reason: reason ?? (decision === 'deny' ? PERMISSION_HOOK_DENY_REASON : PERMISSION_HOOK_ALLOW_REASON), hook }
}

function mergePost(outputs: readonly HookOutput[]): PostHookOutcome {
  const blocking = outputs.find((output) => output.decision === 'block')
  const blockReason = blocking === undefined ? undefined : (blocking.reason ?? blocking.message ?? POST_TOOL_USE_BLOCK_REASON)
  return { blockReason, contexts: contextsOf(outputs) }
}

function contextsOf(outputs: readonly HookOutput[]): readonly string[] {
  const contexts: string[] = []
  for (const output of outputs) {
    if (typeof output.additionalContext === 'string' && output.additionalContext.length > 0) contexts.push(output.additionalContext)
  }
  return contexts.length === 0 ? EMPTY_CONTEXTS : contexts
}

export async function runPreToolUse(call: HookCall): Promise<PreToolUseOutcome> {
  const outputs = await runHooks('PreToolUse', call)
  return outputs === undefined ? NO_PRE_TOOL_USE : mergePreToolUse(outputs)
}

export async function runPermissionRequestHooks(call: HookCall): Promise<PermissionHookOutcome> {
  const outputs = await runHooks('PermissionRequest', call)
  return outputs === undefined ? { decision: undefined, reason: undefined } : mergePermissionRequest(outputs)
}

export async function runPostToolUse(call: HookCall): Promise<PostHookOutcome> {
  const outputs = await runHooks('PostToolUse', call)
  return outputs === undefined ? NO_POST_HOOK : mergePost(outputs)
}

/** R24: cancellation and timeout run these too; a cancellation says isInterrupt. */
export async function runPostToolUseFailure(call: HookCall): Promise<PostHookOutcome> {
  const outputs = await runHooks('PostToolUseFailure', call)
  return outputs === undefined ? NO_POST_HOOK : { blockReason: undefined, contexts: contextsOf(outputs) }
}

/** How a PermissionResolved event names the hook that decided. */
export function hookRuleId(event: HookEventName, hook: string | undefined): string {
  return hook === undefined ? `hook.${event}` : `hook.${event}: ${hook}`
}

export function hasHook(hooks: HookRunner | undefined, event: HookEventName, toolName: string): boolean {
  return hooks !== undefined && hooks.has(event, toolName)
}
