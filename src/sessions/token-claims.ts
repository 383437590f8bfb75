/**
 * @module The principal of a verified identity-provider token, from its claims: the scopes of
 * the standard `scope` claim (space-separated, RFC 8693 / RFC 9068) and of the role named by
 * `toolexec_role`, the sessions of `toolexec_sessions` and the workspaces of
 * `toolexec_workspaces`. A scope or role this server does not know grants nothing; a limit
 * it cannot read refuses the token, since ignoring it would widen what the token reaches.
 */
import path from 'node:path'
import type { JWTPayload } from 'jose'
import { isScope, ROLES, type AccessLimits, type Principal, type RoleName, type Scope } from '../contracts/access.js'

export const ROLE_CLAIM = 'toolexec_role'
export const SESSIONS_CLAIM = 'toolexec_sessions'
export const WORKSPACES_CLAIM = 'toolexec_workspaces'

/** A token whose claims verified but cannot be turned into a principal; the reason names the claim, never its value. */
export class TokenRefused extends Error {
  override readonly name = 'TokenRefused'
}

export function principalOfClaims(claims: JWTPayload): Principal {
  const { iss, sub, exp } = claims
  if (typeof iss !== 'string' || typeof sub !== 'string' || sub.length === 0 || typeof exp !== 'number') throw new TokenRefused('the token lacks iss, sub or exp')
  return {
    id: `jwt:${iss}#${sub}`,
    name: nameOf(claims, sub),
    kind: 'token',
    role: roleOf(claims),
    scopes: scopesOf(claims),
    limits: limitsOf(claims),
    expiresAt: new Date(exp * 1000).toISOString(),
  }
}

function nameOf(claims: JWTPayload, sub: string): string {
  for (const claim of ['name', 'preferred_username']) {
    const value = claims[claim]
    if (typeof value === 'string' && value.trim().length > 0) return value.trim()
  }
  return sub
}

/** The role the token names, when this server knows it. */
function roleOf(claims: JWTPayload): RoleName | null {
  const role = claims[ROLE_CLAIM]
  return typeof role === 'string' && Object.hasOwn(ROLES, role) ? (role as RoleName) : null
}

function scopesOf(claims: JWTPayload): ReadonlySet<Scope> {
  const listed = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(isScope) : []
  const role = roleOf(claims)
  return new Set([...listed, ...(role === null ? [] : ROLES[role])])
}

function limitsOf(claims: JWTPayload): AccessLimits {
  const workspaces = stringsOf(claims, WORKSPACES_CLAIM)
  if (workspaces?.some((workspace) => !path.isAbsolute(workspace)) === true) throw new TokenRefused(`${WORKSPACES_CLAIM} holds a path that is not absolute`)
  return { sessions: stringsOf(claims, SESSIONS_CLAIM), workspaces }
}

/** The claim's list of strings; null when the token has no such claim. */
function stringsOf(claims: JWTPayload, claim: string): string[] | null {
  const value = claims[claim]
  if (value === undefined) return null
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string' && item.length > 0)) throw new TokenRefused(`${claim} is not a list of strings`)
  return [...value]
}
