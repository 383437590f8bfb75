/** @module The principal of a request, set by authentication (auth.ts) and read by the access checks and the routes. */
import type { FastifyRequest } from 'fastify'
import { LOCAL, type Principal } from '../contracts/access.js'

const principals = new WeakMap<FastifyRequest, Principal>()

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal)
}

/** The request's principal; an open route's request has none and acts as the local one (it reaches no data). */
export function principalOf(request: FastifyRequest): Principal {
  return principals.get(request) ?? LOCAL
}

/** Whether authentication named the request's principal (every route but the open ones and CORS preflights). */
export function hasPrincipal(request: FastifyRequest): boolean {
  return principals.has(request)
}
