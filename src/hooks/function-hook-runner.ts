/**
 * @module A HookRunner whose hooks are functions of the host process: the embedding API, and
 * the shape that command and HTTP hooks plug into. Matching hooks run in parallel; each run
 * is reported as HookRun* events.
 */
import type { EventSink, ExecutorEvent } from '../contracts/events.js'
import type { HookEventName, HookOutput, HookPayload, HookRunner } from '../contracts/ports.js'
import { compileMatcher, type ToolMatcher } from './matcher.js'

export interface FunctionHook {
  readonly event: HookEventName
  readonly matcher?: string | undefined
  readonly name: string
  run(payload: HookPayload, signal: AbortSignal): HookOutput | undefined | Promise<HookOutput | undefined>
}

interface CompiledHook {
  readonly hook: FunctionHook
  readonly matches: ToolMatcher
}

const NO_OUTPUTS: readonly HookOutput[] = Object.freeze([])

export function createFunctionHookRunner(hooks: readonly FunctionHook[]): HookRunner {
  const byEvent = new Map<HookEventName, CompiledHook[]>()
  for (const hook of hooks) {
    const list = byEvent.get(hook.event) ?? []
    list.push({ hook, matches: compileMatcher(hook.matcher) })
    byEvent.set(hook.event, list)
  }
  const matching = (event: HookEventName, toolName: string): CompiledHook[] => (byEvent.get(event) ?? []).filter((compiled) => compiled.matches(toolName))

  return {
    has: (event, toolName) => (byEvent.get(event) ?? []).some((compiled) => compiled.matches(toolName)),
    run: async function runFunctionHooks(event, payload, signal, emit) {
      const selected = matching(event, payload.toolName)
      if (selected.length === 0) return NO_OUTPUTS
      const outputs = await Promise.all(selected.map((compiled) => runOne(compiled.hook, payload, signal, emit)))
      return outputs.filter((output): output is HookOutput => output !== undefined)
    },
  }
}

async function runOne(hook: FunctionHook, payload: HookPayload, signal: AbortSignal, emit: EventSink | undefined): Promise<HookOutput | undefined> {
  const fields = { sessionId: payload.sessionId, callId: payload.callId, toolName: payload.toolName, hookEvent: payload.hookEventName, hook: hook.name }
  await send(emit, { type: 'HookRunStarted', ...fields })
  try {
    const output = await hook.run(payload, signal)
    const blockedReason = blockReason(output)
    if (blockedReason !== undefined) await send(emit, { type: 'HookRunBlocked', ...fields, reason: blockedReason })
    else await send(emit, { type: 'HookRunCompleted', ...fields, output })
    return output === undefined ? undefined : { ...output, hook: hook.name }
  } catch (error) {
    await send(emit, { type: 'HookRunFailed', ...fields, error: error instanceof Error ? error.message : String(error) })
    return undefined
  }
}

function blockReason(output: HookOutput | undefined): string | undefined {
  if (output === undefined) return undefined
  if (output.permissionDecision === 'deny' || output.decision === 'deny' || output.decision === 'block') {
    return output.reason ?? output.message ?? 'blocked'
  }
  return undefined
}

async function send(emit: EventSink | undefined, event: ExecutorEvent): Promise<void> {
  if (emit !== undefined) await emit(event)
}
