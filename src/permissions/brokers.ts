/**
 * @module Permission brokers: where an `ask` goes. The default one denies (R17); the
 * in-memory one holds pending requests for an interactive client to answer.
 */
import type { PermissionAnswer, PermissionBroker, PermissionRequest, PermissionTicket } from '../contracts/ports.js'
import { createPermissionTicket } from './permission-ticket.js'

/** R17: with no interactive client every request is denied. */
export function createDenyingBroker(): PermissionBroker {
  return {
    interactive: false,
    open: function openDenied(request: PermissionRequest): PermissionTicket {
      return createPermissionTicket(request)
    },
  }
}

/** Decided requests remembered for idempotent re-answers; the oldest go first. */
const MAX_REMEMBERED_DECISIONS = 10_000

export type AnswerOutcome =
  | { readonly kind: 'settled'; readonly answer: PermissionAnswer }
  | { readonly kind: 'same'; readonly answer: PermissionAnswer }
  | { readonly kind: 'conflict'; readonly answer: PermissionAnswer }
  /** Already decided: a decision is valid once, whatever it says. */
  | { readonly kind: 'decided'; readonly answer: PermissionAnswer }
  | { readonly kind: 'unknown' }

/** Pending requests, answerable by id; each ticket registers before it becomes visible. */
export class InMemoryPermissionBroker implements PermissionBroker {
  readonly interactive = true
  readonly #pending = new Map<string, PermissionTicket>()
  readonly #decided = new Map<string, PermissionAnswer>()

  open(request: PermissionRequest): PermissionTicket {
    const ticket = createPermissionTicket(request, (settled) => this.#forget(settled))
    this.#pending.set(request.permissionId, ticket)
    return ticket
  }

  /** A client's answer: the first wins; the same decision again is not a conflict. */
  answer(permissionId: string, answer: PermissionAnswer): AnswerOutcome {
    const ticket = this.#pending.get(permissionId)
    if (ticket !== undefined && ticket.settle(answer)) return { kind: 'settled', answer }
    const decided = ticket?.settled ?? this.#decided.get(permissionId)
    if (decided === undefined) return { kind: 'unknown' }
    return decided.decision === answer.decision ? { kind: 'same', answer: decided } : { kind: 'conflict', answer: decided }
  }

  pending(sessionId?: string): PermissionRequest[] {
    const requests: PermissionRequest[] = []
    for (const ticket of this.#pending.values()) {
      if (sessionId === undefined || ticket.request.sessionId === sessionId) requests.push(ticket.request)
    }
    return requests
  }

  #forget(ticket: PermissionTicket): void {
    this.#pending.delete(ticket.request.permissionId)
    if (ticket.settled === undefined) return
    this.#decided.set(ticket.request.permissionId, ticket.settled)
    if (this.#decided.size > MAX_REMEMBERED_DECISIONS) {
      const oldest = this.#decided.keys().next().value
      if (oldest !== undefined) this.#decided.delete(oldest)
    }
  }
}
