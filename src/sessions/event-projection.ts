/**
 * @module What a permission decision changes in the store: the decision and the grant its
 * scope makes (the event policy's PermissionResolved row and the broker use it).
 */
import type { StateChange } from './state-change.js'

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
