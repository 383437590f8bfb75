/**
 * @module The HTTP application: routes over the runtime, bearer auth, CORS, errors as
 * `{error:{code,message,details?}}`, the OpenAPI document and its browsable reference, the web console.
 */
import { fastifySSE } from '@fastify/sse'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { ToolexecError } from '../contracts/errors.js'
import type { Runtime } from '../sessions/runtime.js'
import type { TokenVerifier } from '../sessions/token-verifier.js'
import { registerAccessGuard } from './access-guard.js'
import { redactUrl, registerAuth } from './auth.js'
import { registerConsole } from './console.js'
import { corsHeadersFor, registerCors } from './cors.js'
import { registerCrossSiteCheck } from './cross-site.js'
import { handleClientError, handleError } from './error-status.js'
import { buildStorageAwareErrorHandler } from './storage-guard.js'
import { BODY_LIMIT_BYTES, registerJsonBodyParser } from './json-body.js'
import { registerRequestValidation } from './request-validation.js'
import { compileOnFirstUse } from './lazy-validators.js'
import { DEFAULT_REQUEST_TIMEOUT_MS } from './request-timeout.js'
import { swaggerOptions } from './openapi.js'
import { registerDocs } from './docs.js'
import { registerClusterForwarding } from './cluster-forwarding.js'
import { artifactRoutes } from './routes/artifacts.js'
import { clusterRoutes } from './routes/cluster.js'
import { auditRoutes } from './routes/audit.js'
import { keyRoutes } from './routes/keys.js'
import { meRoutes } from './routes/me.js'
import { linkRoutes } from './routes/links.js'
import { protectedResourceRoutes } from './routes/protected-resource.js'
import { eventRoutes } from './routes/events.js'
import { permissionRoutes } from './routes/permissions.js'
import { scheduleRoutes } from './routes/schedules.js'
import { sessionRoutes } from './routes/sessions.js'
import { toolRoutes } from './routes/tools.js'
import { assertEveryRouteListed } from './route-scopes.js'
import { registerRouteAccess } from './route-security.js'
import type { StreamLimits } from './session-stream.js'

export const HEARTBEAT_MS = 15_000

export interface AppOptions {
  readonly runtime: Runtime
  readonly logger: Logger
  readonly token?: string | undefined
  /** Checks the JWTs of an identity provider, accepted next to the token and API keys; undefined: none are. */
  readonly identityTokens?: TokenVerifier | undefined
  readonly corsOrigins?: readonly string[] | undefined
  readonly heartbeatMs?: number | undefined
  readonly streamLimits?: StreamLimits | undefined
  readonly version?: string | undefined
  /** How long a request may take to arrive, headers and body (DEFAULT_REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs?: number | undefined
}

const serializeAsJson = (data: unknown): string => JSON.stringify(data)

/** Node checks the timeouts every this often; a request is cut between the timeout and the timeout plus this. */
function checkingIntervalOf(requestTimeoutMs: number): number {
  return Math.min(1_000, Math.max(25, Math.floor(requestTimeoutMs / 10)))
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  const addCorsHeaders = corsHeadersFor(options.corsOrigins)
  // Typed as fastify's logger so that the instance's type is the one plugins and helpers take.
  const logger: FastifyBaseLogger = options.logger
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // A request must arrive whole, headers and body, within the timeout (408, see
    // handleClientError). It ends when the request has arrived: an SSE stream or a ?wait=
    // poll, whose request is complete at once, runs as long as it needs.
    requestTimeout: requestTimeoutMs,
    http: { requestTimeout: requestTimeoutMs, headersTimeout: requestTimeoutMs, connectionsCheckingInterval: checkingIntervalOf(requestTimeoutMs) },
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    // Path ids may be 200 characters, percent-encoded up to three times longer.
    routerOptions: { maxParamLength: 1_000 },
    // Bad URLs and over-long params get the same error body, and CORS headers, as every other 4xx.
    frameworkErrors: (error, request, reply) => {
      addCorsHeaders(request, reply)
      handleError(error, request, reply)
    },
    clientErrorHandler: handleClientError,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false }, onCreate: compileOnFirstUse },
    // Replies are built from the contracts; JSON.stringify keeps every field as stored. Given
    // here rather than by setSerializerCompiler, fastify never loads fast-json-stringify.
    schemaController: { compilersFactory: { buildSerializer: () => () => serializeAsJson } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  const handleStorageAwareError = buildStorageAwareErrorHandler(options.runtime.storage)
  app.setErrorHandler((error: FastifyError, request, reply) => {
    options.runtime.database.noteFailure(error)
    handleStorageAwareError(error, request, reply)
  })
  registerJsonBodyParser(app)
  registerRequestValidation(app)
  app.setNotFoundHandler((request) => {
    throw new ToolexecError('API_ERR_NOT_FOUND', [request.method, redactUrl(request.url)])
  })
  app.addHook('onResponse', (request, reply, done) => {
    request.log.debug({ method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: reply.elapsedTime }, 'request')
    done()
  })
  // Before authentication: a 401 or a 403 carries the CORS headers too.
  await registerCors(app, options.corsOrigins)
  const routes = registerRouteAccess(app)
  registerAuth(app, options.token, options.runtime.keys, options.identityTokens)
  registerCrossSiteCheck(app, options.token, options.corsOrigins)
  await app.register(swagger, swaggerOptions())
  await registerDocs(app)
  await registerConsole(app)
  await app.register(fastifySSE, { heartbeatInterval: options.heartbeatMs ?? HEARTBEAT_MS })
  const runtime = options.runtime
  // Before a request is passed on to another server: an unseen session is unseen there too.
  registerAccessGuard(app, runtime)
  registerClusterForwarding(app, runtime)
  await app.register(sessionRoutes, { runtime })
  await app.register(scheduleRoutes, { runtime })
  await app.register(permissionRoutes, { runtime })
  await app.register(eventRoutes, { runtime, limits: options.streamLimits })
  await app.register(artifactRoutes, { runtime })
  await app.register(toolRoutes, { runtime })
  await app.register(clusterRoutes, { runtime })
  await app.register(keyRoutes, { runtime })
  await app.register(meRoutes)
  await app.register(auditRoutes, { runtime })
  await app.register(linkRoutes, { runtime })
  await app.register(protectedResourceRoutes, { tokens: options.identityTokens })
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger())
  // A route without its scope in the table stops the server from starting.
  assertEveryRouteListed(routes)
  // Held `?wait=N` requests get the schedule as it stands rather than a dropped connection.
  app.addHook('preClose', async () => {
    runtime.schedules.waiters.releaseAll()
    await new Promise((resolve) => setImmediate(resolve))
  })
  return app
}
