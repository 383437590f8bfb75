/**
 * @module The approval broker of the HTTP server. A ticket is registered before its request
 * is visible (R16); answers are checked against the live ticket and the stored record, so
 * the first answer wins, the same answer again is accepted, and a request still pending
 * after a restart can be answered before its call reaches the approval gate again.
 */
import type { PermissionAnswer, PermissionBroker, PermissionRequest, PermissionTicket } from '../contracts/ports.js'
import type { AnswerOutcome } from '../permissions/brokers.js'
import { createPermissionTicket } from '../permissions/permission-ticket.js'
import type { SqliteStore } from '../storage/sqlite-store.js'

/** How long a decided ticket stays in memory; by then its decision is stored. */
const DECIDED_TICKET_TTL_MS = 30_000

export class SessionPermissionBroker implements PermissionBroker {
  readonly interactive = true
  readonly #store: SqliteStore
  readonly #tickets = new Map<string, PermissionTicket>()
  readonly #earlyAnswers = new Map<string, PermissionAnswer>()

  constructor(store: SqliteStore) {
    this.#store = store
  }

  open(request: PermissionRequest): PermissionTicket {
    // After a restart the call's pending request keeps its id, so old links still answer it.
    const stored = this.#store.pendingPermissionForCall(request.sessionId, request.callId)
    const effective = stored === undefined ? request : { ...request, permissionId: stored.id }
    const ticket = createPermissionTicket(effective, (settled) => this.#forgetLater(settled))
    this.#tickets.set(effective.permissionId, ticket)
    const early = this.#earlyAnswers.get(effective.permissionId)
    if (early !== undefined) {
      this.#earlyAnswers.delete(effective.permissionId)
      ticket.settle(early)
    }
    return ticket
  }

  answer(permissionId: string, answer: PermissionAnswer, sessionId?: string): AnswerOutcome {
    const ticket = this.#tickets.get(permissionId)
    if (ticket !== undefined) {
      if (sessionId !== undefined && ticket.request.sessionId !== sessionId) return { kind: 'unknown' }
      if (ticket.settle(answer)) return { kind: 'settled', answer }
      return compare(ticket.settled ?? answer, answer)
    }
    const row = this.#store.getPermission(permissionId)
    if (row === undefined || (sessionId !== undefined && row.sessionId !== sessionId)) return { kind: 'unknown' }
    if (row.status !== 'pending') {
      return compare({ decision: row.status, decidedBy: (row.decidedBy ?? 'client') as PermissionAnswer['decidedBy'], message: row.message ?? undefined }, answer)
    }
    const early = this.#earlyAnswers.get(permissionId)
    if (early !== undefined) return compare(early, answer)
    this.#earlyAnswers.set(permissionId, answer)
    return { kind: 'settled', answer }
  }

  #forgetLater(ticket: PermissionTicket): void {
    const timer = setTimeout(() => {
      if (this.#tickets.get(ticket.request.permissionId) === ticket) this.#tickets.delete(ticket.request.permissionId)
    }, DECIDED_TICKET_TTL_MS)
    timer.unref()
  }
}

function compare(decided: PermissionAnswer, answer: PermissionAnswer): AnswerOutcome {
  return decided.decision === answer.decision ? { kind: 'same', answer: decided } : { kind: 'conflict', answer: decided }
}
