/**
 * @module On a database several servers share, a request that changes a session is carried out
 * by the server that runs it (holds its lease): this one takes the lease when no live server
 * holds it, else passes the request on, as it came, and answers with the owner's answer, so
 * that the change is durable on the owner before the client hears of it. Reads are answered
 * here from the database. Which session a request changes is told by one table, by route.
 */
import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify'
import { ToolexecError } from '../contracts/errors.js'
import type { Runtime } from '../sessions/runtime.js'

/** The header a passed-on request carries, naming the server that passed it: it is never passed on again. */
export const FORWARDED_BY = 'x-toolexec-forwarded-by'
const ANSWER_TIMEOUT_MS = 60_000
/** What of the owner's answer is passed back besides its body. */
const ANSWER_HEADERS = ['content-type', 'retry-after', 'location'] as const

/** The session whose lease a request was carried out under, here. */
const claimed = new WeakMap<FastifyRequest, string>()

type SessionOf = (request: FastifyRequest, runtime: Runtime) => Promise<string | undefined>

const param = (request: FastifyRequest): string => (request.params as { id: string }).id
const ofSchedule: SessionOf = async (request, runtime) => (await runtime.store.schedules.get(param(request)))?.sessionId
const ofPermission: SessionOf = async (request, runtime) => (await runtime.store.approvals.get(param(request)))?.sessionId

/** Every route that changes a session, by method and route, and how its session is found. */
const SESSION_CHANGES: Readonly<Record<string, SessionOf>> = {
  'POST /schedules': (request) => Promise.resolve((request.body as { sessionId?: string } | undefined)?.sessionId),
  'POST /schedules/:id/calls': ofSchedule,
  'POST /schedules/:id/close': ofSchedule,
  'POST /permissions/:id': ofPermission,
  'POST /sessions/:id/abort': (request) => Promise.resolve(param(request)),
  'DELETE /sessions/:id': (request) => Promise.resolve(param(request)),
  'PATCH /sessions/:id': (request) => Promise.resolve(param(request)),
}

export function registerClusterForwarding(app: FastifyInstance, runtime: Runtime): void {
  if (runtime.ownership.solo) return
  app.addHook('preHandler', async (request, reply) => {
    const sessionOf = SESSION_CHANGES[`${request.method} ${request.routeOptions.url ?? ''}`]
    const sessionId = sessionOf === undefined ? undefined : await sessionOf(request, runtime)
    if (sessionId === undefined) return
    const claim = await runtime.ownership.claim(sessionId)
    if (claim.local) {
      claimed.set(request, sessionId)
      return
    }
    const owner = claim.node
    if (owner === undefined || !owner.live) throw moving(sessionId, owner === undefined ? `server ${claim.owner} is gone` : `server ${owner.id} misses its heartbeats`)
    // Passed on once at most: the owner that no longer runs it answers 503, and the client retries.
    if (request.headers[FORWARDED_BY] !== undefined) throw moving(sessionId, `it moved to server ${owner.id} meanwhile`)
    // An owner that did not take it (gone, or no longer the owner) is read again next time.
    const forget = (): void => runtime.ownership.forgetOwner(sessionId)
    const status = await passOn(request, reply, owner.url, runtime.ownership.nodeId, sessionId).catch((error: unknown) => {
      forget()
      throw error
    })
    if (status === 503) forget()
  })
  // A request about a session that does not exist (404) leaves no lease behind it.
  app.addHook('onResponse', async (request, reply) => {
    const sessionId = claimed.get(request)
    if (sessionId === undefined || reply.statusCode !== 404) return
    if ((await runtime.store.sessions.get(sessionId)) === undefined) await runtime.ownership.release(sessionId)
  })
}

/** Passes the request on to the owner and answers with its answer; returns the owner's status. */
async function passOn(request: FastifyRequest, reply: FastifyReply, ownerUrl: string, nodeId: string, sessionId: string): Promise<number> {
  const headers: Record<string, string> = { [FORWARDED_BY]: nodeId }
  if (request.headers.authorization !== undefined) headers.authorization = request.headers.authorization
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  // Loaded when a request is first passed on (a cluster's), not by every start.
  const { request: send } = await import('undici')
  let answer
  try {
    answer = await send(new URL(request.url, ownerUrl), {
      method: request.method as 'POST' | 'DELETE',
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      headersTimeout: ANSWER_TIMEOUT_MS,
      bodyTimeout: ANSWER_TIMEOUT_MS,
    })
  } catch (error) {
    throw moving(sessionId, error instanceof Error ? error.message : String(error))
  }
  const body = await answer.body.text()
  for (const name of ANSWER_HEADERS) {
    const value = answer.headers[name]
    if (typeof value === 'string') void reply.header(name, value)
  }
  await reply.code(answer.statusCode).send(body)
  return answer.statusCode
}

function moving(sessionId: string, why: string): ToolexecError {
  return new ToolexecError('API_ERR_SESSION_MOVING', [sessionId, why], { context: { retryAfterSeconds: 1 } })
}
