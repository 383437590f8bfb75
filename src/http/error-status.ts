/** @module The edge's one mapping from coded domain errors to HTTP statuses and bodies. */
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ERROR_CATALOGUE, ToolexecError } from '../contracts/errors.js'
import { isApiErrorCode, type ApiErrorCode } from '../contracts/api-errors.js'
import type { ErrorReply } from '../contracts/api.js'
import { isLeaseLost } from '../contracts/cluster.js'
import { isStorageDamage } from '../contracts/store.js'
import { BODY_LIMIT_BYTES } from './json-body.js'

const STATUS: Record<ApiErrorCode, number> = {
  API_ERR_VALIDATION: 400,
  API_ERR_WORKSPACE_IN_INSTALL: 400,
  API_ERR_BAD_REQUEST: 400,
  API_ERR_BAD_DEPENDENCY: 400,
  EXEC_ERR_DEPENDENCY_CYCLE: 400,
  EXEC_ERR_UNKNOWN_DEPENDENCY: 400,
  EXEC_ERR_INVALID_TOOL: 400,
  API_ERR_UNAUTHORIZED: 401,
  API_ERR_HOST_NOT_LOOPBACK: 403,
  API_ERR_ORIGIN_NOT_ALLOWED: 403,
  API_ERR_FORBIDDEN: 403,
  API_ERR_KEY_TOO_WIDE: 403,
  API_ERR_FOUR_EYES: 403,
  API_ERR_NOT_FOUND: 404,
  API_ERR_SESSION_NOT_FOUND: 404,
  API_ERR_SCHEDULE_NOT_FOUND: 404,
  API_ERR_PERMISSION_NOT_FOUND: 404,
  API_ERR_ARTIFACT_NOT_FOUND: 404,
  API_ERR_ARTIFACT_FILE_MISSING: 404,
  API_ERR_RULE_NOT_FOUND: 404,
  API_ERR_RULE_NOT_OFFERED: 400,
  API_ERR_TOOL_NOT_FOUND: 404,
  API_ERR_KEY_NOT_FOUND: 404,
  API_ERR_LINK_NOT_FOUND: 404,
  API_ERR_REQUEST_TIMEOUT: 408,
  API_ERR_SESSION_EXISTS: 409,
  API_ERR_SESSION_DIFFERS: 409,
  API_ERR_SESSION_BUSY: 409,
  API_ERR_CALL_ID_TAKEN: 409,
  EXEC_ERR_DUPLICATE_CALL_ID: 409,
  EXEC_ERR_DUPLICATE_TOOL: 409,
  API_ERR_SCHEDULE_NOT_OPEN: 409,
  API_ERR_PERMISSION_DECIDED: 409,
  API_ERR_PERMISSION_CLOSED: 409,
  API_ERR_PERMISSION_INPUT_CHANGED: 409,
  API_ERR_TOOL_NOT_DELETABLE: 409,
  API_ERR_BODY_TOO_LARGE: 413,
  API_ERR_URI_TOO_LONG: 414,
  API_ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  API_ERR_NOT_ACCEPTABLE: 406,
  API_ERR_RANGE: 416,
  API_ERR_TOO_MANY_SCHEDULES: 429,
  API_ERR_HEADERS_TOO_LARGE: 431,
  API_ERR_INTERNAL: 500,
  // Not 503: retrying will not help, the database needs its operator.
  API_ERR_STORAGE_CORRUPT: 500,
  API_ERR_SHUTTING_DOWN: 503,
  API_ERR_STORAGE_UNAVAILABLE: 503,
  API_ERR_SESSION_MOVING: 503,
  API_ERR_IDENTITY_PROVIDER_UNAVAILABLE: 503,
  API_ERR_STORAGE_FULL: 507,
}

interface CodedError {
  readonly code?: unknown
  readonly message: string
  readonly statusCode?: unknown
  readonly validation?: unknown
  readonly context?: unknown
}

export function statusOf(error: CodedError): number {
  if (error.validation !== undefined) return 400
  if (isApiErrorCode(error.code)) return STATUS[error.code]
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500
  return status >= 400 && status < 600 ? status : 500
}

export function errorBody(error: CodedError, status: number): ErrorReply {
  if (error.validation !== undefined) {
    return { error: { code: 'API_ERR_VALIDATION', message: error.message, details: error.validation } }
  }
  if (!isApiErrorCode(error.code)) return frameworkErrorBody(error, status)
  if (error.code === 'API_ERR_INTERNAL') return { error: { code: 'API_ERR_INTERNAL', message: ERROR_CATALOGUE.API_ERR_INTERNAL } }
  const body: ErrorReply = { error: { code: error.code, message: error.message } }
  if (error.context !== undefined) body.error.details = error.context
  return body
}

/** What fastify, a plugin or an uncoded failure refuses gets the catalogue's code for its status: a client never sees another. */
const CODE_OF_STATUS: Readonly<Record<number, ApiErrorCode>> = {
  400: 'API_ERR_VALIDATION',
  404: 'API_ERR_NOT_FOUND',
  406: 'API_ERR_NOT_ACCEPTABLE',
  408: 'API_ERR_REQUEST_TIMEOUT',
  413: 'API_ERR_BODY_TOO_LARGE',
  414: 'API_ERR_URI_TOO_LONG',
  415: 'API_ERR_UNSUPPORTED_MEDIA_TYPE',
  431: 'API_ERR_HEADERS_TOO_LARGE',
}

function frameworkErrorBody(error: CodedError, status: number): ErrorReply {
  if (status >= 500) return { error: { code: 'API_ERR_INTERNAL', message: ERROR_CATALOGUE.API_ERR_INTERNAL } }
  const code = CODE_OF_STATUS[status] ?? 'API_ERR_BAD_REQUEST'
  const args = code === 'API_ERR_BODY_TOO_LARGE' ? [error.message, BODY_LIMIT_BYTES] : [error.message]
  const message = code === 'API_ERR_NOT_FOUND' || code === 'API_ERR_REQUEST_TIMEOUT' ? error.message : new ToolexecError(code, args).message
  return { error: { code, message } }
}

/** A backend's own error for a damaged database, or for a session another server took over, as the catalogue's code. */
function asCodedError(error: FastifyError): CodedError {
  if (isStorageDamage(error)) return new ToolexecError('API_ERR_STORAGE_CORRUPT', [error.message], { cause: error })
  // A server paused past its lease learns it lost a session from the database's fence: the client retries, on the new owner.
  if (isLeaseLost(error)) return new ToolexecError('API_ERR_SESSION_MOVING', ['of this request', 'another server took it over'], { cause: error, context: { retryAfterSeconds: 1 } })
  return error
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const coded = asCodedError(error)
  const status = statusOf(coded)
  if (status >= 500) request.log.error({ err: error }, 'request failed')
  const retryAfter = retryAfterOf(coded)
  if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter))
  void reply.code(status).type('application/json').send(errorBody(coded, status))
}

/** A refusal that passes with time (a full backlog) says when to try again, in seconds. */
function retryAfterOf(error: CodedError): number | undefined {
  const context = error.context
  if (typeof context !== 'object' || context === null || !('retryAfterSeconds' in context)) return undefined
  const seconds = context.retryAfterSeconds
  return typeof seconds === 'number' ? seconds : undefined
}

/** Errors the HTTP parser meets before any route (headers too large, a malformed request), in the same body shape. */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : timedOut ? 408 : 400
  const reason = STATUS_CODES[status] ?? 'Client Error'
  const reply: ErrorReply = timedOut
    ? { error: { code: 'API_ERR_REQUEST_TIMEOUT', message: ERROR_CATALOGUE.API_ERR_REQUEST_TIMEOUT } }
    : status === 431
      ? { error: { code: 'API_ERR_HEADERS_TOO_LARGE', message: ERROR_CATALOGUE.API_ERR_HEADERS_TOO_LARGE } }
      : { error: { code: 'API_ERR_BAD_REQUEST', message: new ToolexecError('API_ERR_BAD_REQUEST', [error.code ?? reason]).message } }
  const body = JSON.stringify(reply)
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(error)
}
