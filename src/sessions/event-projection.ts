/**
 * @module What a permission decision changes in the store: the decision and the grant its
 * scope makes (the event policy's PermissionResolved row and the broker use it), and the audit
 * entry of a decision a person made or the server made without one.
 */
import { serverActor, type AuditActor } from '../contracts/audit.js'
import type { UnitOfWork } from '../contracts/store.js'

export interface RecordedDecision {
  readonly status: 'allow' | 'deny'
  readonly decidedBy: string
  readonly message: string | null
  readonly scope: string | null
  /** With scope `project`: the rules the person chose (rule-choices.ts); absent: the suggested rule. */
  readonly rules?: readonly string[] | undefined
  readonly deciderId?: string | null
  readonly deciderName?: string | null
}

/** The request a decision is about, as the audit entry names it. */
export interface DecidedRequest {
  readonly permissionId: string
  readonly sessionId: string
  readonly callId: string
  readonly toolName: string
  /** The rule a session or project grant adds: the request's suggested rule, else its tool. */
  readonly suggestedRule?: string | null | undefined
}

/** The grant a decision added, for its audit entry. */
export type AddedGrant = { readonly scope: 'session'; readonly rule: string } | { readonly scope: 'project'; readonly rule: string; readonly ruleId: string } | undefined

/**
 * Stores a request's decision with the grant its scope makes. A request already decided keeps
 * its decision (the first answer wins); writing the same grant again changes nothing.
 * `scope: session`: the same tool with the same rule key runs without asking from now on;
 * `scope: project`: the narrowest rule becomes an allow rule of the session's workspace.
 */
export function recordDecision(unit: UnitOfWork, permissionId: string, decision: RecordedDecision, at: string): { ruleId: string } | undefined {
  unit.approvals.decide(permissionId, { ...decision, decidedAt: at })
  if (decision.status === 'allow' && decision.scope === 'session') unit.approvals.grantFor(permissionId, at)
  if (decision.status !== 'allow' || decision.scope !== 'project') return undefined
  const chosen = decision.rules ?? [undefined]
  return { ruleId: chosen.map((rule) => unit.rules.projectRuleFor(permissionId, at, rule)).join(', ') }
}

/**
 * Records the decision with its audit entry, in the same unit: `approval.answered` by the
 * person's key (the grant it added named), `approval.decided` by the server with the reason
 * (a timeout, an abort, a hook, a request closed as superseded) when nobody answered.
 */
export function recordAuditedDecision(unit: UnitOfWork, request: DecidedRequest, decision: RecordedDecision, at: string, actor: AuditActor | undefined): void {
  const project = recordDecision(unit, request.permissionId, decision, at)
  const rule = decision.scope === 'project' && decision.rules !== undefined ? decision.rules.join(', ') : (request.suggestedRule ?? request.toolName)
  const grant: AddedGrant =
    decision.status !== 'allow' ? undefined : decision.scope === 'session' ? { scope: 'session', rule } : project !== undefined ? { scope: 'project', rule, ruleId: project.ruleId } : undefined
  const { permissionId, callId, toolName } = request
  unit.audit.append({
    at,
    kind: actor === undefined ? 'approval.decided' : 'approval.answered',
    actor: actor ?? serverActor(decision.decidedBy),
    sessionId: request.sessionId,
    detail: { permissionId, callId, toolName, decision: decision.status, scope: decision.scope, message: decision.message, ...(grant === undefined ? {} : { grant }) },
  })
}
