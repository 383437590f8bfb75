/** @module One approval's single point of decision: the first answer wins (R16). */
import type { PermissionAnswer, PermissionRequest, PermissionTicket } from '../contracts/ports.js'

class Ticket implements PermissionTicket {
  readonly request: PermissionRequest
  readonly answer: Promise<PermissionAnswer>
  #settled: PermissionAnswer | undefined = undefined
  #resolve: (answer: PermissionAnswer) => void = () => {}
  #onSettle: ((ticket: Ticket) => void) | undefined

  constructor(request: PermissionRequest, onSettle?: (ticket: Ticket) => void) {
    this.request = request
    this.#onSettle = onSettle
    this.answer = new Promise<PermissionAnswer>((resolve) => {
      this.#resolve = resolve
    })
  }

  get settled(): PermissionAnswer | undefined {
    return this.#settled
  }

  settle(answer: PermissionAnswer): boolean {
    if (this.#settled !== undefined) return false
    this.#settled = answer
    this.#resolve(answer)
    this.#onSettle?.(this)
    return true
  }
}

export function createPermissionTicket(request: PermissionRequest, onSettle?: (ticket: PermissionTicket) => void): PermissionTicket {
  return new Ticket(request, onSettle)
}
