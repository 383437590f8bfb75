/**
 * @module Who may do what: the scopes (one per kind of action), the roles (named bundles of
 * scopes) and the principal an authenticated request carries. The route that needs each scope
 * is told by one table (src/http/route-scopes.ts).
 */
import { Type, type Static } from '@sinclair/typebox'

export const SCOPES = [
  'sessions:create',
  'sessions:read',
  'sessions:abort',
  'sessions:delete',
  'events:read',
  'schedules:write',
  'approvals:decide',
  'rules:read',
  'rules:write',
  'tools:read',
  'tools:write',
  'cluster:read',
  'keys:read',
  'keys:write',
  'links:write',
  'audit:read',
] as const

export type Scope = (typeof SCOPES)[number]

export const ScopeSchema = Type.Union(
  SCOPES.map((scope) => Type.Literal(scope)),
  { $id: 'Scope', description: 'One kind of action; every route needs exactly one (see the `security` of each operation)' },
)

const READ: readonly Scope[] = ['sessions:read', 'events:read', 'tools:read']

/** The named bundles of scopes a key can be given instead of a list. */
export const ROLES = {
  owner: SCOPES,
  agent: ['sessions:create', ...READ, 'schedules:write', 'sessions:abort'],
  approver: [...READ, 'approvals:decide', 'rules:read', 'links:write'],
  observer: READ,
  auditor: [...READ, 'rules:read', 'cluster:read', 'keys:read', 'audit:read'],
} as const satisfies Record<string, readonly Scope[]>

export type RoleName = keyof typeof ROLES

export const RoleSchema = Type.Union(
  (Object.keys(ROLES) as RoleName[]).map((role) => Type.Literal(role)),
  {
    $id: 'Role',
    description:
      'owner: every scope; agent: create, schedule, read, stream and abort its sessions; approver: read, stream, decide and mint links; observer: read and stream; auditor: the audit log and read',
  },
)
export type Role = Static<typeof RoleSchema>

/**
 * What a limited principal may see: the sessions named, and those whose workspace lies under one
 * of the paths. Both absent: every session.
 */
export interface AccessLimits {
  readonly sessions: readonly string[] | null
  readonly workspaces: readonly string[] | null
}

export const NO_LIMITS: AccessLimits = { sessions: null, workspaces: null }

/**
 * Who sent a request: the administrator (TOOLEXEC_TOKEN), a key (or a short-lived link), a
 * token of the identity provider (TOOLEXEC_JWT_ISSUER), or anyone on this machine when the
 * server runs without a token.
 */
export interface Principal {
  readonly id: string
  readonly name: string
  readonly kind: 'admin' | 'key' | 'token' | 'local'
  /** The role a key was given; absent or null for one given a list of scopes, and for the administrator and the local principal. */
  readonly role?: RoleName | null
  readonly scopes: ReadonlySet<Scope>
  readonly limits: AccessLimits
  /** When its credential stops working; null when it does not expire. */
  readonly expiresAt: string | null
  /** For a short-lived link: the principal that minted it, as whom four eyes counts the link. */
  readonly linkOf?: string | undefined
}

export const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPES)

export const ADMIN: Principal = { id: 'admin', name: 'administrator (TOOLEXEC_TOKEN)', kind: 'admin', scopes: ALL_SCOPES, limits: NO_LIMITS, expiresAt: null }
export const LOCAL: Principal = { id: 'local', name: 'local (no TOOLEXEC_TOKEN)', kind: 'local', scopes: ALL_SCOPES, limits: NO_LIMITS, expiresAt: null }

export function isLimited(limits: AccessLimits): boolean {
  return limits.sessions !== null || limits.workspaces !== null
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

/** What GET /.well-known/oauth-protected-resource answers (RFC 9728) when identity-provider tokens are accepted. */
export const ProtectedResourceMetadataSchema = Type.Object(
  {
    resource: Type.String({ description: 'This server as a protected resource: TOOLEXEC_JWT_AUDIENCE when it is a URL, else the origin the request reached' }),
    authorization_servers: Type.Array(Type.String(), { description: 'The identity provider whose tokens are accepted: TOOLEXEC_JWT_ISSUER' }),
    scopes_supported: Type.Array(ScopeSchema, { description: 'Every scope; a token names those it holds in its `scope` claim, space-separated' }),
    bearer_methods_supported: Type.Array(Type.Literal('header'), { description: 'Tokens go in the Authorization header' }),
  },
  { $id: 'ProtectedResourceMetadata', description: 'OAuth 2.0 protected resource metadata (RFC 9728), as the MCP authorization specification asks' },
)
export type ProtectedResourceMetadata = Static<typeof ProtectedResourceMetadataSchema>
