/**
 * @module What a permission decision changes in the store: the decision and the grant its
 * scope makes (the event policy's PermissionResolved row and the broker use it).
 */
import type { UnitOfWork } from '../contracts/store.js'

export interface RecordedDecision {
  readonly status: 'allow' | 'deny'
  readonly decidedBy: string
  readonly message: string | null
  readonly scope: string | null
  readonly deciderId?: string | null
  readonly deciderName?: string | null
}

/**
 * Stores a request's decision with the grant its scope makes. A request already decided keeps
 * its decision (the first answer wins); writing the same grant again changes nothing.
 * `scope: session`: the same tool with the same rule key runs without asking from now on;
 * `scope: project`: the narrowest rule becomes an allow rule of the session's workspace.
 */
export function recordDecision(unit: UnitOfWork, permissionId: string, decision: RecordedDecision, at: string): void {
  unit.approvals.decide(permissionId, { ...decision, decidedAt: at })
  if (decision.status === 'allow' && decision.scope === 'session') unit.approvals.grantFor(permissionId, at)
  if (decision.status === 'allow' && decision.scope === 'project') unit.rules.projectRuleFor(permissionId, at)
}
