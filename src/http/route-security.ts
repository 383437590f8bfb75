/**
 * @module Each route as it is registered: remembered for the check that the scope table lists
 * it (route-scopes.ts), and its operation in the OpenAPI document given its scope as `security`.
 */
import type { FastifyInstance, RouteOptions } from 'fastify'
import { AUTHENTICATED, routeAccess } from './route-scopes.js'

export interface RegisteredRoute {
  readonly method: string
  readonly url: string
}

/** Returns the routes registered from now on, filled as they are. */
export function registerRouteAccess(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = []
  app.addHook('onRoute', function routeSecurity(route: RouteOptions) {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) routes.push({ method, url: route.url })
    const access = routeAccess(methods[0] ?? 'GET', route.url)
    if (route.schema === undefined || access === undefined || access.scope === null) return
    // A bearer with no scope listed: any credential will do.
    const scopes = access.scope === AUTHENTICATED ? [] : [access.scope]
    const security: Record<string, string[]>[] = [{ bearer: scopes }]
    if (access.queryToken === true) security.push({ accessToken: scopes })
    route.schema = { ...route.schema, security }
  })
  return routes
}
