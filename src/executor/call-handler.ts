/**
 * @module The handler stage of one call: the timer starts only here, after permission (R19);
 * timeout and abort end the call at once (R23) and run the failure hooks (R24); a success is
 * serialized (R31-R36), projected for display (R38) and shown to the PostToolUse hooks, and
 * only then replaced by the tool's recorded output, when it declares one.
 */
import type { ExecutorEvent } from '../contracts/events.js'
import type { ToolCallContext } from '../contracts/ports.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import type { CallState } from './call-state.js'
import type { ToolDeadline } from './deadline.js'
import { observeAdmissionClock } from './deadline.js'
import { isBusinessFailure, projectErrorMessage, toolUseError } from './errors.js'
import { emitDetached, emitEvent } from './events.js'
import { hasHook, NO_POST_HOOK, runPostToolUse, runPostToolUseFailure } from './hook-flow.js'
import { isErrorForHistory } from './history.js'
import { wrapModelForCall } from './model-status.js'
import { createToolResultDisplay } from './result-display.js'
import { serializeInlineText, serializeOutput } from './result-serialization.js'
import { LOG_EVENTS } from './telemetry.js'
import { executeWithTimeout, resolveTimeoutMs, type AbortHandle } from './timeout.js'
import { turnControlOnSuccess } from './turn-control.js'

const NEVER_ABORTED: AbortSignal = new AbortController().signal

export async function runHandlerStage(state: CallState, entry: ToolEntry): Promise<ToolExecutionResult> {
  const timeoutMs = resolveTimeoutMs(entry, state.input, state.deps.defaultTimeoutMs)
  await announceStart(state)
  let deadline: ToolDeadline | undefined
  const outcome = await executeWithTimeout(
    (call, callDeadline) => {
      deadline = callDeadline
      return entry.handler(state.input, buildContext(state, call, callDeadline))
    },
    { timeoutMs, parentSignal: state.turn.signal },
  )
  state.queuedMs = deadline?.queuedMs ?? 0
  switch (outcome.kind) {
    case 'ok':
      if (isBusinessFailure(outcome.value)) {
        const message = outcome.value.message
        return failAfterRun(state, { status: 'failed', errorClass: 'business', message, modelContent: toolUseError(message), code: outcome.value.errorCode }, false)
      }
      return succeed(state, entry, outcome.value)
    case 'error':
      return failAfterRun(state, { status: 'failed', errorClass: 'exception', message: projectErrorMessage(outcome.error) }, false)
    case 'timeout':
      return failAfterRun(
        state,
        { status: 'timed_out', errorClass: 'timeout', message: outcome.error.message, code: outcome.error.code, context: { timeoutMs: outcome.timeoutMs, queuedMs: outcome.queuedMs } },
        false,
      )
    case 'aborted':
      return failAfterRun(state, { status: 'cancelled', errorClass: 'cancelled', message: entry.cancellation?.userVisibleMessage ?? 'Tool execution cancelled' }, true)
  }
}

async function announceStart(state: CallState): Promise<void> {
  const flags = state.flags
  if (flags === undefined) throw new Error('flags are resolved before the handler stage')
  const pending = emitEvent(state.turn.emit, {
    type: 'ToolCallStarted',
    sessionId: state.turn.sessionId,
    callId: state.call.id,
    toolName: state.call.name,
    input: state.input,
    flags,
  })
  if (pending !== undefined) await pending
  const logger = state.deps.logger
  if (logger.isLevelEnabled('info')) logger.info({ sessionId: state.turn.sessionId, callId: state.call.id, toolName: state.call.name }, LOG_EVENTS.started)
}

function buildContext(state: CallState, abort: AbortHandle, deadline: ToolDeadline | undefined): ToolCallContext {
  const { turn, deps, call } = state
  const sink = turn.emit
  // R22: the deadline listens to this call's ModelNetworkStatus events on their way out.
  const emit = (event: ExecutorEvent): void | Promise<unknown> => {
    observeAdmissionClock(event, call.id, deadline)
    return sink?.(event)
  }
  return {
    callId: call.id,
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    toolName: call.name,
    get signal() {
      return abort.signal
    },
    workspace: turn.workspace,
    permissionMode: turn.permissionMode ?? 'default',
    permission: state.permission === 'approved' ? 'approved' : 'none',
    approvedTarget: state.approvedTarget,
    writes: state.writes,
    progress: (data) => emitDetached(sink, { type: 'ToolCallProgress', sessionId: turn.sessionId, callId: call.id, toolName: call.name, progress: data }),
    model: deps.model === undefined ? undefined : wrapModelForCall(deps.model, deps.admission, { sessionId: turn.sessionId, callId: call.id, emit }),
    artifacts: deps.artifacts,
    services: deps.services,
  }
}

interface RunFailure {
  readonly status: 'failed' | 'timed_out' | 'cancelled'
  readonly errorClass: 'business' | 'exception' | 'timeout' | 'cancelled'
  readonly message: string
  readonly modelContent?: string | undefined
  readonly code?: string | undefined
  readonly context?: Record<string, unknown> | undefined
}

/** R24: the failure hooks run for errors, timeouts and cancellations alike. */
async function failAfterRun(state: CallState, failure: RunFailure, isInterrupt: boolean): Promise<ToolExecutionResult> {
  const post = await runPostToolUseFailure({
    hooks: state.deps.hooks,
    payload: { ...state.hookPayload(), error: failure.message, isInterrupt },
    signal: NEVER_ABORTED,
    emit: state.turn.emit,
  })
  state.addContexts(post.contexts)
  return state.fail({ ...failure, stage: 'handler' })
}

async function succeed(state: CallState, entry: ToolEntry, output: unknown): Promise<ToolExecutionResult> {
  const { call, turn, deps } = state
  let serialized
  try {
    const request = { entry, toolName: call.name, output, sessionId: turn.sessionId, callId: call.id, artifacts: deps.artifacts }
    serialized = serializeInlineText(request) ?? (await serializeOutput(request))
  } catch (error) {
    return state.fail({ status: 'failed', stage: 'serialization', errorClass: 'exception', message: projectErrorMessage(error), output: recordedOutputOf(entry, output) })
  }
  const display = createToolResultDisplay({ entry, input: state.input, output, fullText: serialized.fullText, serialization: serialized.serialization })
  const post = !hasHook(deps.hooks, 'PostToolUse', call.name)
    ? NO_POST_HOOK
    : await runPostToolUse({
        hooks: deps.hooks,
        payload: { ...state.hookPayload(), toolResult: { success: true, output, modelContent: serialized.modelContent } },
        signal: state.signal,
        emit: turn.emit,
      })
  state.addContexts(post.contexts)
  const recorded = recordedOutputOf(entry, output)
  if (post.blockReason !== undefined) {
    const message = `PostToolUse hook blocked this result: ${post.blockReason}`
    return state.fail({ status: 'failed', stage: 'post_tool_use', errorClass: 'hook_blocked', message, code: 'EXEC_ERR_POST_HOOK_BLOCKED', output: recorded })
  }
  const turnControl = turnControlOnSuccess(entry)
  const result: ToolExecutionResult = {
    callId: call.id,
    toolName: call.name,
    success: true,
    status: 'succeeded',
    isError: isErrorForHistory({ success: true, status: 'succeeded', output }, entry),
    modelContent: serialized.modelContent,
    output: recorded,
    ...(display === undefined ? null : { display }),
    ...(turnControl === undefined ? null : { control: { turnControl } }),
    serialization: serialized.serialization,
    perf: { totalMs: 0, permissionWaitMs: 0, queuedMs: 0 },
    permission: state.permission,
    hookContext: [],
  }
  return state.finish(result)
}

/** The display and the PostToolUse hooks had the whole output; from here on the tool's record of it travels. */
function recordedOutputOf(entry: ToolEntry, output: unknown): unknown {
  return entry.recordedOutput === undefined ? output : entry.recordedOutput(output)
}
