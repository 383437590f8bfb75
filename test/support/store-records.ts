/** Records the store tests write: a session, a tool's flags and a call's result, each with what a test changes. */
import type { ToolFlags } from '../../src/contracts/flags.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import type { SessionRecord } from '../../src/contracts/store.js'

export const STORE_TEST_AT = '2026-01-02T03:04:05.000Z'

export function sessionRecord(id: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return { id, workspace: `/work/${id}`, permissionMode: 'default', interactive: true, permissionTimeoutMs: null, createdAt: STORE_TEST_AT, ...extra }
}

export function toolFlags(extra: Partial<ToolFlags> = {}): ToolFlags {
  return {
    readOnly: false,
    destructive: false,
    concurrentSafe: false,
    sideEffectScope: 'workspace',
    alwaysAsk: false,
    requiresUserInteraction: false,
    dependencies: [],
    ...extra,
  }
}

/** A succeeded Edit whose model content and output are `text`. */
export function succeededResult(callId: string, text: string, extra: Partial<ToolExecutionResult> = {}): ToolExecutionResult {
  return {
    callId,
    toolName: 'Edit',
    success: true,
    status: 'succeeded',
    isError: false,
    modelContent: text,
    output: text,
    serialization: { truncated: false, originalBytes: Buffer.byteLength(text), actualBytes: Buffer.byteLength(text), strategy: 'inline' },
    perf: { totalMs: 1.5, permissionWaitMs: 0.25, queuedMs: 0 },
    permission: 'approved',
    hookContext: [],
    ...extra,
  }
}
