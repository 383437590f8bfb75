/**
 * @module One call's whole life (R12): lookup -> schema validation -> resolveInput ->
 * PreToolUse hooks -> permission -> approval -> (timer starts) handler -> serialization ->
 * PostToolUse hooks -> result. Every exit goes through one place that adds hook context,
 * performance data, the event, the log line and the span.
 */
import type { ToolCall } from '../contracts/tool-call.js'
import type { TurnContext } from '../contracts/ports.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import type { AskedDenial, ToolEntry } from '../contracts/tool-entry.js'
import { runHandlerStage } from './call-handler.js'
import { CallState } from './call-state.js'
import type { ExecutorDeps } from './deps.js'
import { createErrorResult, formatValidationError, meaningfulReason, projectedValidationError, projectErrorMessage, projectMessage, toolUseError } from './errors.js'
import { emitEvent } from './events.js'
import { hasHook, hookRuleId, NO_PRE_TOOL_USE, runPreToolUse, type PreToolUseOutcome } from './hook-flow.js'
import { decidePermission } from './permission-flow.js'
import { flagsFor } from './tool-flags.js'
import { askedDenialOutcome } from './turn-control.js'

const CANCELLED_TEXT = 'Tool execution cancelled'

export async function executeToolCall(call: ToolCall, turn: TurnContext, deps: ExecutorDeps): Promise<ToolExecutionResult> {
  const state = new CallState(call, turn, deps)
  try {
    return await runStages(state)
  } catch (error) {
    // A port that throws (storage, events) must still end the call with a result.
    return state.finish(createErrorResult({ callId: call.id, toolName: call.name, status: 'failed', stage: 'handler', errorClass: 'exception', message: projectErrorMessage(error) }))
  }
}

async function runStages(state: CallState): Promise<ToolExecutionResult> {
  if (state.signal.aborted) return cancelledBeforeStart(state)
  const entry = state.entry
  if (entry === undefined) return notFound(state)
  const prepared = await prepareInput(state, entry, state.call.input)
  if (prepared !== undefined) return prepared
  // No PreToolUse hook for this tool: no promise to wait for (hot path).
  const pre = hasHook(state.deps.hooks, 'PreToolUse', state.call.name)
    ? await runPreToolUse({ hooks: state.deps.hooks, payload: state.hookPayload(), signal: state.signal, emit: state.turn.emit })
    : NO_PRE_TOOL_USE
  state.addContexts(pre.contexts)
  const rejected = await applyPreToolUse(state, entry, pre)
  if (rejected !== undefined) return rejected
  const denied = await askPermission(state, entry, pre)
  if (denied !== undefined) return denied
  if (state.signal.aborted) return cancelledBeforeStart(state)
  return runHandlerStage(state, entry)
}

function cancelledBeforeStart(state: CallState): Promise<ToolExecutionResult> {
  const message = state.entry?.cancellation?.userVisibleMessage ?? CANCELLED_TEXT
  return state.fail({ status: 'cancelled', stage: 'handler', errorClass: 'cancelled', message })
}

/** A4 and R27: an empty name and an unknown name have their own texts; R26 projects the latter. */
function notFound(state: CallState): Promise<ToolExecutionResult> {
  const name = state.call.name
  const modelContent = name.length === 0 ? toolUseError(`Error: No such tool available: ${name}`) : projectMessage(`Tool not found: ${name}`)
  return state.fail({ status: 'failed', stage: 'lookup', errorClass: 'not_found', message: modelContent, modelContent, code: 'EXEC_ERR_TOOL_NOT_FOUND' })
}

/**
 * Validation then resolveInput (R13); sets state.input and state.flags, or returns the failure.
 * R26: only the model's own input gets the texts written for the model; a hook's rewrite that
 * fails gets the projected message.
 */
async function prepareInput(state: CallState, entry: ToolEntry, raw: unknown, from: 'model' | 'hook' = 'model'): Promise<ToolExecutionResult | undefined> {
  const validate = from === 'model' ? formatValidationError : projectedValidationError
  const invalid = validate(state.call.name, entry.inputSchema, raw)
  if (invalid !== undefined) {
    return state.fail({ status: 'failed', stage: 'validation', errorClass: 'validation', message: invalid, modelContent: invalid, code: 'EXEC_ERR_INVALID_INPUT' })
  }
  try {
    state.input = entry.resolveInput === undefined ? raw : await entry.resolveInput(raw, { sessionId: state.turn.sessionId, callId: state.call.id, workspace: state.turn.workspace })
  } catch (error) {
    const message = projectErrorMessage(error)
    return state.fail({ status: 'failed', stage: 'resolve_input', errorClass: 'validation', message, modelContent: from === 'model' ? toolUseError(message) : message })
  }
  state.flags = flagsFor(entry, state.input)
  return undefined
}

/** R13: a rewritten input is validated and resolved again; R14: a deny blocks here. */
async function applyPreToolUse(state: CallState, entry: ToolEntry, pre: PreToolUseOutcome): Promise<ToolExecutionResult | undefined> {
  if (pre.decision === 'deny') {
    const reason = meaningfulReason(pre.reason) ?? 'Blocked by PreToolUse hook'
    await emitEvent(state.turn.emit, {
      type: 'PermissionResolved',
      sessionId: state.turn.sessionId,
      callId: state.call.id,
      toolName: state.call.name,
      decision: 'deny',
      decidedBy: 'hook',
      reason,
      ruleId: hookRuleId('PreToolUse', pre.hook),
    })
    state.permission = 'denied'
    return state.fail({ status: 'denied', stage: 'pre_tool_use', errorClass: 'hook_blocked', message: reason, code: 'EXEC_ERR_HOOK_BLOCKED' })
  }
  if (!pre.hasUpdatedInput) return undefined
  return prepareInput(state, entry, pre.updatedInput, 'hook')
}

async function askPermission(state: CallState, entry: ToolEntry, pre: PreToolUseOutcome): Promise<ToolExecutionResult | undefined> {
  const askedAt = state.deps.clock.now()
  const decision = await decidePermission({
    deps: state.deps,
    turn: state.turn,
    entry,
    toolName: state.call.name,
    callId: state.call.id,
    input: state.input,
    flags: state.flags ?? flagsFor(entry, state.input),
    pre,
    signal: state.signal,
  })
  if (decision.kind !== 'allow' || decision.asked) state.permissionWaitMs = state.deps.clock.now() - askedAt
  if (decision.kind === 'allow') {
    state.permission = decision.asked ? 'approved' : 'none'
    state.approvedTarget = decision.leadsTo
    state.writes = decision.writes
    return undefined
  }
  if (decision.kind === 'aborted') return cancelledBeforeStart(state)
  state.permission = 'denied'
  if (entry.askedDenial !== undefined && decision.asked) {
    // A5: only the user's own words are feedback; a broker, hook or timeout reason is not.
    return askedDenied(state, entry.askedDenial, decision.answer?.decidedBy === 'client' ? decision.message : undefined)
  }
  const message = meaningfulReason(decision.message) ?? `Permission denied for ${state.call.name}`
  return state.fail({ status: 'denied', stage: 'permission', errorClass: 'permission_denied', message, code: 'EXEC_ERR_PERMISSION_DENIED' })
}

function askedDenied(state: CallState, askedDenial: AskedDenial, feedback: string | undefined): Promise<ToolExecutionResult> {
  const denial = askedDenialOutcome(askedDenial, state.call.name, feedback)
  return state.fail({
    status: 'denied',
    stage: 'permission',
    errorClass: 'permission_denied',
    message: denial.modelContent,
    context: denial.userFeedback === undefined ? undefined : { userFeedback: denial.userFeedback },
    turnControl: denial.control,
  })
}
