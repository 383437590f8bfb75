/**
 * @module Wraps the model a handler receives so that every request passes the admission gate
 * and reports ModelNetworkStatus events for its tool call (R22). The call's deadline listens
 * to these events (observeAdmissionClock), so they must exist for every request.
 */
import type { ExecutorEvent, ModelNetworkStatusEvent } from '../contracts/events.js'
import type { ModelClient, ModelRequest, ModelResponse } from '../contracts/ports.js'
import type { AdmissionGate, ReleaseAdmission } from './admission-gate.js'

export interface ModelStatusTarget {
  readonly sessionId: string
  readonly callId: string
  readonly emit: (event: ExecutorEvent) => void | Promise<unknown>
}

type Status = ModelNetworkStatusEvent['status']

function statusEvent(target: ModelStatusTarget, status: Status, queuedMs?: number): ModelNetworkStatusEvent {
  const event: ModelNetworkStatusEvent = { type: 'ModelNetworkStatus', sessionId: target.sessionId, callId: target.callId, status }
  if (queuedMs !== undefined) event.queuedMs = queuedMs
  return event
}

async function admit(gate: AdmissionGate, target: ModelStatusTarget, signal: AbortSignal): Promise<ReleaseAdmission> {
  const queuedAt = performance.now()
  await target.emit(statusEvent(target, 'model_request_queued'))
  let release: ReleaseAdmission
  try {
    release = await gate.acquire(signal)
  } catch (error) {
    // queuedMs on a failure marks a request that never left the queue: the deadline resumes.
    await target.emit(statusEvent(target, 'model_request_failed', performance.now() - queuedAt))
    throw error
  }
  try {
    await target.emit(statusEvent(target, 'model_request_admitted', performance.now() - queuedAt))
  } catch (error) {
    release()
    throw error
  }
  return release
}

async function completeAdmitted(model: ModelClient, target: ModelStatusTarget, request: ModelRequest, signal: AbortSignal, release: ReleaseAdmission): Promise<ModelResponse> {
  try {
    let response: ModelResponse
    try {
      response = await model.complete(request, signal)
    } catch (error) {
      await target.emit(statusEvent(target, 'model_request_failed'))
      throw error
    }
    await target.emit(statusEvent(target, 'model_request_completed'))
    return response
  } finally {
    release()
  }
}

/**
 * Returns a model that queues at `gate` before every request and reports
 * queued → admitted (with queuedMs) → completed | failed for `target.callId`.
 *
 * @example ctx.model = wrapModelForCall(model, gate, { sessionId, callId, emit })
 */
export function wrapModelForCall(model: ModelClient, gate: AdmissionGate, target: ModelStatusTarget): ModelClient {
  return {
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
      const release = await admit(gate, target, signal)
      return completeAdmitted(model, target, request, signal, release)
    },
  }
}
