/** @module What every stage of one call shares, and the single exit every result leaves by. */
import type { Span } from '@opentelemetry/api'
import type { ToolFlags } from '../contracts/flags.js'
import type { HookPayload, TurnContext, WriteGrant } from '../contracts/ports.js'
import type { PermissionOutcome, ToolExecutionResult } from '../contracts/result.js'
import type { ToolCall } from '../contracts/tool-call.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import { failureResult, type FailureSpec } from './call-failures.js'
import type { ExecutorDeps } from './deps.js'
import { emitEvent } from './events.js'
import { appendHookContext, capHookContexts } from './hook-context.js'
import { endCallSpan, logResult, startCallSpan } from './telemetry.js'

const NEVER_ABORTED: AbortSignal = new AbortController().signal

/** What every stage of one call shares. */
export class CallState {
  readonly call: ToolCall
  readonly turn: TurnContext
  readonly deps: ExecutorDeps
  readonly signal: AbortSignal
  readonly startedAt: number
  readonly contexts: string[] = []
  readonly span: Span
  entry: ToolEntry | undefined
  input: unknown
  flags: ToolFlags | undefined = undefined
  permission: PermissionOutcome = 'none'
  /** Where the outside path of the approved request led when it was asked. */
  approvedTarget: string | undefined = undefined
  /** What the call may write, by how it was allowed. */
  writes: WriteGrant = 'none'
  permissionWaitMs = 0
  queuedMs = 0

  constructor(call: ToolCall, turn: TurnContext, deps: ExecutorDeps) {
    this.call = call
    this.turn = turn
    this.deps = deps
    this.signal = turn.signal ?? NEVER_ABORTED
    this.startedAt = deps.clock.now()
    this.entry = call.name.length > 0 ? deps.registry.get(call.name) : undefined
    this.input = call.input
    this.span = startCallSpan(deps.tracer, call.name, this.entry !== undefined, call.id)
  }

  hookPayload(): HookPayload {
    return {
      hookEventName: 'PreToolUse',
      sessionId: this.turn.sessionId,
      callId: this.call.id,
      toolName: this.call.name,
      toolInput: this.input,
      workspace: this.turn.workspace,
    }
  }

  addContexts(contexts: readonly string[]): void {
    for (const context of contexts) this.contexts.push(context)
  }

  /** The single exit: hook context (R29), perf (R42), event (R37), log (R43), span (R41). */
  async finish(result: ToolExecutionResult): Promise<ToolExecutionResult> {
    // The result is this call's own fresh object: completing it in place saves a copy per call.
    const finished = result
    const contexts = capHookContexts(this.contexts)
    if (contexts.length > 0) finished.modelContent = appendHookContext(result.modelContent, contexts)
    finished.perf = { totalMs: this.deps.clock.now() - this.startedAt, permissionWaitMs: this.permissionWaitMs, queuedMs: this.queuedMs }
    finished.permission = this.permission
    finished.hookContext = contexts
    const pending = emitEvent(this.turn.emit, {
      type: 'ToolCallResult',
      sessionId: this.turn.sessionId,
      callId: finished.callId,
      toolName: finished.toolName,
      result: finished,
    })
    if (pending !== undefined) await pending
    logResult(this.deps.logger, finished, this.turn.sessionId)
    endCallSpan(this.span, finished)
    return finished
  }

  /** Every failure of a call ends here: one builder (R25), hook context added by finish (R27). */
  fail(spec: FailureSpec): Promise<ToolExecutionResult> {
    return this.finish(failureResult(this.call, spec))
  }
}
