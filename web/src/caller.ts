/**
 * @module Who the console's token is (GET /me), for the whole page: the header shows its name
 * and role, and a control is offered only when the token holds the scope its request needs,
 * so that an observer sees no Allow, Deny, Abort or Delete it would be refused.
 */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Scope } from '../../src/contracts/access.js'
import type { Caller } from '../../src/contracts/caller.js'
import { request, type Reply } from './api.js'

export type { Caller }

export const CallerContext = createContext<Caller | undefined>(undefined)

/** GET /me with `token`, or with the stored one when none is given. */
export function fetchCaller(token?: string): Promise<Reply<Caller>> {
  return request<Caller>('GET', '/me', undefined, token)
}

export function holds(caller: Caller | undefined, scope: Scope): boolean {
  return caller !== undefined && caller.scopes.includes(scope)
}

/** Whether the console's token holds `scope`: what a control whose request needs it is shown on. */
export function useCan(scope: Scope): boolean {
  return holds(useContext(CallerContext), scope)
}
