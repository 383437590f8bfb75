/**
 * @module One span per call and the log events of R41-R43. Spans go through
 * @opentelemetry/api, a no-op unless the host registers an SDK.
 */
import { SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api'
import type { Logger } from 'pino'
import type { ToolExecutionResult } from '../contracts/result.js'

export const LOG_EVENTS = {
  started: 'tool.call.started',
  completed: 'tool.call.completed',
  failed: 'tool.call.failed',
  notFound: 'tool.call.not_found',
  cancelledAfterTurnStop: 'tool.call.cancelled_after_turn_stop',
  permissionEvaluated: 'tool.permission.evaluated',
  permissionDenied: 'tool.permission.denied',
  permissionResolved: 'tool.permission.resolved',
  hookRaceForfeited: 'tool.permission.hook_race_forfeited',
  approvalPreviewFailed: 'tool.permission.approval_preview_failed',
} as const

/** R41: a name the model invented is traced as `unknown`; the real name stays in the error. */
export function startCallSpan(tracer: Tracer, toolName: string, known: boolean, callId: string): Span {
  const name = known ? toolName : 'unknown'
  return tracer.startSpan(`tool ${name}`, { attributes: { 'tool.name': name, 'tool.call_id': callId } })
}

export function endCallSpan(span: Span, result: ToolExecutionResult): void {
  if (span.isRecording()) {
    span.setAttribute('tool.permission', result.permission)
    span.setAttribute('tool.output_bytes', result.serialization.originalBytes)
    span.setAttribute('tool.truncated', result.serialization.truncated)
    span.setAttribute('tool.status', result.status)
    if (result.error !== undefined) {
      span.setAttribute('tool.error.stage', result.error.stage)
      span.setAttribute('tool.error.class', result.error.errorClass)
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.errorClass })
    }
  }
  span.end()
}

export function logResult(logger: Logger, result: ToolExecutionResult, sessionId: string): void {
  // Building the fields costs allocations on every call: skip them when nobody listens.
  if (!logger.isLevelEnabled('info')) return
  const fields = { sessionId, callId: result.callId, toolName: result.toolName, status: result.status, totalMs: result.perf.totalMs }
  if (result.success) {
    logger.info(fields, LOG_EVENTS.completed)
    return
  }
  const error = { ...fields, stage: result.error?.stage, errorClass: result.error?.errorClass }
  logger.info(error, result.error?.errorClass === 'not_found' ? LOG_EVENTS.notFound : LOG_EVENTS.failed)
}
