/**
 * @module The one table of who may call what: every route's scope (AUTHENTICATED for one any
 * credential may call, null for the open ones), where its session is found when it names one,
 * and whether it takes the token in the query.
 * The server refuses to start with a route missing here (assertEveryRouteListed), the OpenAPI
 * document shows each operation's scope as its `security`, and the access checks read it.
 */
import type { Scope } from '../contracts/access.js'

/**
 * Where the session a route acts on is named: its `:id` (`param`), its `:sessionId`
 * (`artifact`), the session of the schedule or the permission request of its `:id`, or the
 * session a POST /sessions or POST /schedules body names or creates.
 */
export type SessionTarget = 'param' | 'artifact' | 'schedule' | 'permission' | 'new-session' | 'new-schedule'

/** The scope marker of a route every authenticated principal may call, whatever scopes it holds. */
export const AUTHENTICATED = 'authenticated'

export interface RouteAccess {
  /** null: open to anyone, with or without a token; AUTHENTICATED: any valid credential. */
  readonly scope: Scope | typeof AUTHENTICATED | null
  readonly session?: SessionTarget
  /** A browser's EventSource cannot send headers: the token may come as ?access_token=. */
  readonly queryToken?: boolean
}

const OPEN: RouteAccess = { scope: null }

export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  'POST /sessions': { scope: 'sessions:create', session: 'new-session' },
  'GET /sessions': { scope: 'sessions:read' },
  'GET /sessions/:id': { scope: 'sessions:read', session: 'param' },
  'DELETE /sessions/:id': { scope: 'sessions:delete', session: 'param' },
  // Who may create a session may name it.
  'PATCH /sessions/:id': { scope: 'sessions:create', session: 'param' },
  'POST /sessions/:id/abort': { scope: 'sessions:abort', session: 'param' },
  'GET /sessions/:id/history': { scope: 'sessions:read', session: 'param' },
  'GET /sessions/:id/events': { scope: 'events:read', session: 'param', queryToken: true },
  'POST /sessions/:id/links': { scope: 'links:write', session: 'param' },
  'DELETE /sessions/:id/links/:linkId': { scope: 'links:write', session: 'param' },
  'POST /schedules': { scope: 'schedules:write', session: 'new-schedule' },
  'POST /schedules/:id/calls': { scope: 'schedules:write', session: 'schedule' },
  'POST /schedules/:id/close': { scope: 'schedules:write', session: 'schedule' },
  'GET /schedules/:id': { scope: 'sessions:read', session: 'schedule' },
  'POST /permissions/:id': { scope: 'approvals:decide', session: 'permission' },
  'GET /permissions': { scope: 'sessions:read' },
  'GET /permissions/rules': { scope: 'rules:read' },
  'DELETE /permissions/rules/:id': { scope: 'rules:write' },
  'GET /artifacts/:sessionId/:artifactId': { scope: 'sessions:read', session: 'artifact' },
  'GET /tools': { scope: 'tools:read' },
  'POST /tools': { scope: 'tools:write' },
  'DELETE /tools/:name': { scope: 'tools:write' },
  'GET /cluster': { scope: 'cluster:read' },
  'POST /keys': { scope: 'keys:write' },
  'GET /keys': { scope: 'keys:read' },
  'DELETE /keys/:id': { scope: 'keys:write' },
  'GET /audit': { scope: 'audit:read' },
  // Who the credential is: a key with no scope for any other route still learns what it holds.
  'GET /me': { scope: AUTHENTICATED },
  'GET /healthz': OPEN,
  'GET /openapi.json': OPEN,
  // What a client reads to learn where to get a token (RFC 9728): it must be reachable without one.
  'GET /.well-known/oauth-protected-resource': OPEN,
  // The web console's page: it holds no data and asks for the token itself, like its assets.
  'GET /': OPEN,
}

/** The API reference (swagger-ui and the document it shows) and the console's assets hold no data. */
const OPEN_PREFIXES = ['/docs', '/console/'] as const

function isOpenAsset(url: string): boolean {
  return OPEN_PREFIXES.some((prefix) => url === prefix || url.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`))
}

/** The entry of a route by method and pattern (HEAD as GET); undefined for one the table misses. */
export function routeAccess(method: string, url: string | undefined): RouteAccess | undefined {
  if (url === undefined) return undefined
  if (isOpenAsset(url)) return OPEN
  return ROUTE_ACCESS[`${method === 'HEAD' ? 'GET' : method} ${url}`]
}

/** @throws Error naming every registered route the table misses: the server does not start without each route's scope. */
export function assertEveryRouteListed(routes: readonly { readonly method: string; readonly url: string }[]): void {
  const missing = routes.filter((route) => route.method !== 'OPTIONS' && routeAccess(route.method, route.url) === undefined)
  if (missing.length === 0) return
  throw new Error(`routes without an entry in ROUTE_ACCESS (src/http/route-scopes.ts): ${missing.map((route) => `${route.method} ${route.url}`).join(', ')}`)
}
