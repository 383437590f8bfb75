/**
 * @module The approval broker of the HTTP server. A ticket is registered before its request
 * is visible (R16); answers are checked against the live ticket and the stored record, so
 * the first answer wins and is the only one (a second, even the same, is told the request is
 * decided), and a request still pending after a restart can be answered before its call
 * reaches the approval gate again. A
 * client's answer is stored before it is confirmed, so a crash right after cannot lose it:
 * at the next start the call finds it and is not asked again.
 */
import type { AuditActor } from '../contracts/audit.js'
import type { PermissionAnswer, PermissionBroker, PermissionRequest, PermissionTicket } from '../contracts/ports.js'
import type { PermissionRow } from '../contracts/store.js'
import type { AnswerOutcome } from '../permissions/brokers.js'
import { createPermissionTicket } from '../permissions/permission-ticket.js'
import type { Store } from '../contracts/store.js'
import type { EventJournal } from './event-journal.js'
import { stateChangeFor } from './event-policy.js'
import { recordAuditedDecision, type DecidedRequest } from './event-projection.js'

const SUPERSEDED = "Closed: after a restart the call's input is no longer what this request showed; the call asked again."

/** How long a decided ticket stays in memory; by then its decision is stored. */
const DECIDED_TICKET_TTL_MS = 30_000

export class SessionPermissionBroker implements PermissionBroker {
  readonly interactive = true
  readonly #store: Pick<Store, 'approvals' | 'commit'>
  readonly #journal: EventJournal
  readonly #tickets = new Map<string, PermissionTicket>()

  constructor(store: Pick<Store, 'approvals' | 'commit'>, journal: EventJournal) {
    this.#store = store
    this.#journal = journal
  }

  async open(request: PermissionRequest): Promise<PermissionTicket> {
    const reopened = await this.#reopened(request)
    const effective = reopened === undefined ? request : { ...request, permissionId: reopened.id }
    const ticket = createPermissionTicket(effective, (settled) => this.#forgetLater(settled))
    this.#tickets.set(effective.permissionId, ticket)
    if (reopened === undefined) return ticket
    // An answer that came while this was read (a node that just took the session over) is on record by now.
    const latest = reopened.status === 'pending' ? await this.#store.approvals.get(reopened.id) : reopened
    if (latest !== undefined && latest.status !== 'pending') ticket.settle(recordedAnswer(latest))
    return ticket
  }

  /**
   * After a restart the call's request keeps its id, so old links still answer it, when it was
   * asked for this very input. One already answered keeps its answer: the call had not started,
   * and a denied call must not run because it was asked again and allowed. A request that
   * showed other input (a hook changed since) is closed, and the call asks anew: nobody may
   * approve one input and have another run.
   */
  async #reopened(request: PermissionRequest): Promise<PermissionRow | undefined> {
    const stored = await this.#store.approvals.lastForCall(request.sessionId, request.callId)
    if (stored === undefined) return undefined
    if (JSON.stringify(stored.input) === JSON.stringify(request.input ?? null)) return stored
    if (stored.status === 'pending') await this.#closeSuperseded(stored)
    return undefined
  }

  // A client still drawing the old dialog learns from the stream that it closed.
  async #closeSuperseded(stored: PermissionRow): Promise<void> {
    const event = {
      type: 'PermissionResolved' as const,
      sessionId: stored.sessionId,
      permissionId: stored.id,
      callId: stored.callId,
      toolName: stored.toolName,
      decision: 'deny' as const,
      decidedBy: 'broker' as const,
      reason: SUPERSEDED,
    }
    await this.#journal.appendNow(event, stateChangeFor(event))
  }

  /** `actor` is who answered, named in the decision's audit entry. */
  async answer(permissionId: string, answer: PermissionAnswer, actor: AuditActor, sessionId?: string): Promise<AnswerOutcome> {
    const ticket = this.#tickets.get(permissionId)
    if (ticket !== undefined) {
      if (sessionId !== undefined && ticket.request.sessionId !== sessionId) return { kind: 'unknown' }
      if (!ticket.settle(answer)) return { kind: 'decided', answer: ticket.settled ?? answer }
      await this.#record(ticket.request, answer, actor)
      return { kind: 'settled', answer }
    }
    const row = await this.#store.approvals.get(permissionId)
    if (row === undefined || (sessionId !== undefined && row.sessionId !== sessionId)) return { kind: 'unknown' }
    if (row.status !== 'pending') return { kind: 'decided', answer: recordedAnswer(row) }
    // Its call has not asked again since a restart: the stored answer waits for it, or settles
    // the call's ticket if it asked again meanwhile (after it had read the request still pending).
    await this.#record({ ...row, permissionId }, answer, actor)
    this.#tickets.get(permissionId)?.settle(answer)
    return { kind: 'settled', answer }
  }

  /** Drops the decided tickets of a deleted session: an answer to one of them is then a 404, like its deleted row. */
  forgetSession(sessionId: string): void {
    for (const [permissionId, ticket] of this.#tickets) {
      if (ticket.request.sessionId === sessionId) this.#tickets.delete(permissionId)
    }
  }

  /** The answer with its audit entry, committed before the client hears it was taken. */
  #record(request: DecidedRequest, answer: PermissionAnswer, actor: AuditActor): Promise<void> {
    const decider = { deciderId: answer.decider?.id ?? null, deciderName: answer.decider?.name ?? null }
    const decision = { status: answer.decision, decidedBy: answer.decidedBy, message: answer.message ?? null, scope: answer.scope ?? null, rules: answer.rules, ...decider }
    return this.#store.commit((unit) => recordAuditedDecision(unit, request, decision, new Date().toISOString(), actor))
  }

  #forgetLater(ticket: PermissionTicket): void {
    const timer = setTimeout(() => {
      if (this.#tickets.get(ticket.request.permissionId) === ticket) this.#tickets.delete(ticket.request.permissionId)
    }, DECIDED_TICKET_TTL_MS)
    timer.unref()
  }
}

// No scope: a session or project grant was stored with the decision.
export function recordedAnswer(stored: PermissionRow): PermissionAnswer {
  const decision = stored.status === 'allow' ? 'allow' : 'deny'
  const decider = stored.deciderId === null ? undefined : { id: stored.deciderId, name: stored.deciderName ?? '' }
  return { decision, decidedBy: (stored.decidedBy ?? 'client') as PermissionAnswer['decidedBy'], message: stored.message ?? undefined, decider }
}
