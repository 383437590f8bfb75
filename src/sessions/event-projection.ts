/**
 * @module What each executor event changes in the store. The journal runs the change and
 * writes the event in the same transaction, so the records and the stream never disagree.
 */
import type { ExecutorEvent } from '../contracts/events.js'
import type { StateChange } from './event-journal.js'

const NO_CHANGE: StateChange | undefined = undefined

export function stateChangeFor(event: ExecutorEvent): StateChange | undefined {
  switch (event.type) {
    case 'ToolCallStarted':
      return (store, at) => store.markCallRunning(event.sessionId, event.callId, event.input, event.flags, at)
    case 'PermissionRequested':
      return (store, at) => {
        // A request re-opened after a restart keeps its row (same id).
        if (store.getPermission(event.permissionId) === undefined) {
          store.insertPermission({
            id: event.permissionId,
            sessionId: event.sessionId,
            callId: event.callId,
            toolName: event.toolName,
            input: event.input,
            preview: event.preview,
            riskLevel: event.riskLevel,
            reason: event.reason,
            suggestedRule: event.suggestedRule ?? null,
            createdAt: at,
          })
        }
        store.setCallStatus(event.sessionId, event.callId, 'awaiting_permission')
      }
    case 'PermissionResolved':
      return (store, at) => {
        if (event.permissionId !== undefined) {
          recordDecision(store, event.permissionId, { status: event.decision, decidedBy: event.decidedBy, message: event.reason ?? null, scope: event.scope ?? null }, at)
        }
        if (event.decision === 'allow') store.setCallStatus(event.sessionId, event.callId, 'pending')
      }
    case 'ToolCallResult':
      return (store, at) => store.completeCall(event.sessionId, event.result, at)
    case 'ScheduleCompleted':
      return (store, at) => store.setScheduleStatus(event.scheduleId, event.status, at)
    default:
      return NO_CHANGE
  }
}

export interface RecordedDecision {
  readonly status: 'allow' | 'deny'
  readonly decidedBy: string
  readonly message: string | null
  readonly scope: string | null
}

/**
 * Stores a request's decision with the grant its scope makes. A request already decided keeps
 * its decision (the first answer wins); writing the same grant again changes nothing.
 */
export function recordDecision(store: Parameters<StateChange>[0], permissionId: string, decision: RecordedDecision, at: string): void {
  store.decidePermission(permissionId, { ...decision, decidedAt: at })
  if (decision.status === 'allow' && decision.scope === 'session') grantForSession(store, permissionId, at)
  if (decision.status === 'allow' && decision.scope === 'project') grantForProject(store, permissionId, at)
}

/** `scope: session`: the same tool with the same rule key runs without asking from now on. */
function grantForSession(store: Parameters<StateChange>[0], permissionId: string, at: string): void {
  const request = store.getPermission(permissionId)
  if (request === undefined) return
  store.insertGrant(request.sessionId, request.toolName, request.suggestedRule ?? request.toolName, at)
}

/** `scope: project`: the narrowest rule becomes an allow rule of the session's workspace. */
function grantForProject(store: Parameters<StateChange>[0], permissionId: string, at: string): void {
  const request = store.getPermission(permissionId)
  const session = request === undefined ? undefined : store.getSession(request.sessionId)
  if (request === undefined || session === undefined) return
  store.insertProjectRule(session.workspace, request.suggestedRule ?? request.toolName, at)
}
