/**
 * @module The session check of a limited principal (a key limited to sessions or workspaces),
 * before any route runs: a session it does not see answers exactly as one that does not exist
 * (the same 404, the same body), and one it would create outside its limits is a 403. Where
 * each route names its session is told by the scope table (route-scopes.ts). A principal with
 * no limits costs nothing here.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { isLimited, type Principal } from '../contracts/access.js'
import type { CreateScheduleBody, CreateSessionBody } from '../contracts/api.js'
import { ToolexecError } from '../contracts/errors.js'
import type { Runtime } from '../sessions/runtime.js'
import { limitsCover } from '../sessions/session-access.js'
import { unknownSessionOfSchedule } from '../sessions/session-service.js'
import { principalOf } from './principal.js'
import { routeAccess, type SessionTarget } from './route-scopes.js'

type Check = (request: FastifyRequest, principal: Principal, runtime: Runtime) => Promise<void> | void

const param = (request: FastifyRequest, name = 'id'): string => (request.params as Record<string, string>)[name] ?? ''

async function unseen(runtime: Runtime, principal: Principal, sessionId: string | undefined): Promise<boolean> {
  return sessionId !== undefined && !(await runtime.access.seesId(principal, sessionId))
}

const CHECKS: Readonly<Record<SessionTarget, Check>> = {
  param: async (request, principal, runtime) => {
    const id = param(request)
    if (await unseen(runtime, principal, id)) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [id, ''])
  },
  artifact: async (request, principal, runtime) => {
    if (await unseen(runtime, principal, param(request, 'sessionId'))) throw new ToolexecError('API_ERR_ARTIFACT_NOT_FOUND', [param(request, 'artifactId'), param(request, 'sessionId')])
  },
  schedule: async (request, principal, runtime) => {
    const id = param(request)
    if (await unseen(runtime, principal, (await runtime.store.schedules.get(id))?.sessionId)) throw new ToolexecError('API_ERR_SCHEDULE_NOT_FOUND', [id])
  },
  permission: async (request, principal, runtime) => {
    const id = param(request)
    if (await unseen(runtime, principal, (await runtime.store.approvals.get(id))?.sessionId)) throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
  },
  'new-session': (request, principal, runtime) => {
    const body = (request.body ?? {}) as CreateSessionBody
    assertMayCreate(principal, body.id, runtime.sessions.newRecord(body.id ?? '', body).workspace)
  },
  'new-schedule': async (request, principal, runtime) => {
    const body = request.body as CreateScheduleBody
    const limited = isLimited(principal.limits)
    if (!limited && (body.createSession === undefined || principal.scopes.has('sessions:create'))) return
    const stored = await runtime.store.sessions.get(body.sessionId)
    if (stored !== undefined) {
      if (runtime.access.sees(principal, stored)) return
      // Answered as for a session that does not exist: refused creation, or not found.
      if (body.createSession !== undefined) throw outside(principal, body.sessionId)
      throw unknownSessionOfSchedule(body.sessionId)
    }
    if (body.createSession === undefined) return
    // Creating the session is what POST /sessions does: it needs that route's scope too.
    if (!principal.scopes.has('sessions:create')) throw lacks(principal, 'sessions:create', 'createSession')
    assertMayCreate(principal, body.sessionId, runtime.sessions.newRecord(body.sessionId, body.createSession).workspace)
  },
}

function assertMayCreate(principal: Principal, id: string | undefined, workspace: string): void {
  if (!limitsCover(principal.limits, { id, workspace })) throw outside(principal, id ?? '(an id the server picks)')
}

function outside(principal: Principal, id: string): ToolexecError {
  const { sessions, workspaces } = principal.limits
  const limits = [sessions === null ? '' : `sessions ${sessions.join(', ')}`, workspaces === null ? '' : `workspaces under ${workspaces.join(', ')}`].filter((part) => part !== '')
  return new ToolexecError('API_ERR_FORBIDDEN', [`Key ${principal.id} (${principal.name}) may not create session ${id} there: it is limited to ${limits.join(' and ')}`])
}

/** 403 naming the scope `what` needs. */
export function lacks(principal: Principal, scope: string, what: string): ToolexecError {
  return new ToolexecError('API_ERR_FORBIDDEN', [`Key ${principal.id} (${principal.name}) lacks the scope ${scope}, which ${what} needs`], { context: { scope } })
}

export function registerAccessGuard(app: FastifyInstance, runtime: Runtime): void {
  app.addHook('preHandler', async function sessionsInLimits(request) {
    const target = routeAccess(request.method, request.routeOptions.url)?.session
    if (target === undefined) return
    const principal = principalOf(request)
    // Without limits only a schedule that creates its session is looked at (the scope it needs).
    if (!isLimited(principal.limits) && target !== 'new-schedule') return
    await CHECKS[target](request, principal, runtime)
  })
}
