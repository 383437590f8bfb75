/**
 * @module The JSON a hook receives: Claude Code's snake_case fields, so existing hook scripts
 * work unchanged, and the same facts in camelCase.
 */
import type { HookPayload } from '../contracts/ports.js'

export function hookInput(payload: HookPayload): Record<string, unknown> {
  const input: Record<string, unknown> = {
    hook_event_name: payload.hookEventName,
    session_id: payload.sessionId,
    tool_use_id: payload.callId,
    tool_name: payload.toolName,
    tool_input: payload.toolInput,
    cwd: payload.workspace,
    hookEventName: payload.hookEventName,
    sessionId: payload.sessionId,
    callId: payload.callId,
    toolName: payload.toolName,
    toolInput: payload.toolInput,
    workspace: payload.workspace,
  }
  if (payload.toolResult !== undefined) {
    input.tool_response = payload.toolResult.output
    input.toolResult = payload.toolResult
  }
  if (payload.error !== undefined) input.error = payload.error
  if (payload.isInterrupt !== undefined) {
    input.is_interrupt = payload.isInterrupt
    input.isInterrupt = payload.isInterrupt
  }
  return input
}
