/**
 * @module The error codes an HTTP reply can carry, each with what it means: the `code` of
 * every `{error:{code,message}}`. A subset of the catalogue (errors.ts); the edge maps each
 * to its status (src/http/error-status.ts) and answers anything else as one of these.
 */
import { Type } from '@sinclair/typebox'
import type { ErrorCode } from './errors.js'

export const API_ERROR_CODES = {
  API_ERR_VALIDATION: 'A parameter, header or body breaks the schema (the message names the place, `details` has every finding), the body is not JSON, or a value is refused by a rule of the route',
  API_ERR_BAD_REQUEST: 'The HTTP request itself could not be read (a malformed request line or header)',
  API_ERR_BAD_DEPENDENCY: "A streamed call's dependsOn names no earlier call of its schedule",
  EXEC_ERR_DEPENDENCY_CYCLE: 'The dependsOn of the calls of a schedule form a cycle',
  EXEC_ERR_UNKNOWN_DEPENDENCY: 'A call depends on a call id that is not in its schedule',
  EXEC_ERR_INVALID_TOOL: 'A tool definition is not valid (POST /tools)',
  API_ERR_UNAUTHORIZED: 'The server runs with a token and the request has none, or a wrong one',
  API_ERR_IDENTITY_PROVIDER_UNAVAILABLE: 'A JWT names the identity provider, whose keys cannot be fetched now: no fault of the token; retry in a moment',
  API_ERR_HOST_NOT_LOOPBACK: 'The server runs without a token and the Host is not a loopback name (DNS rebinding)',
  API_ERR_FORBIDDEN: 'The key lacks the scope this route needs (the message names it), or the request would reach outside its sessions or workspaces',
  API_ERR_KEY_TOO_WIDE: 'POST /keys: the new key would hold a scope, a session, a workspace or a time the key minting it does not have',
  API_ERR_ORIGIN_NOT_ALLOWED:
    'The server runs without a token and the request comes from a web page on another site: an Origin that is neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site',
  API_ERR_NOT_FOUND: 'No route has this method and path',
  API_ERR_SESSION_NOT_FOUND: 'No session has this id',
  API_ERR_SCHEDULE_NOT_FOUND: 'No schedule has this id',
  API_ERR_PERMISSION_NOT_FOUND: 'No permission request has this id (in this session, when one was named)',
  API_ERR_ARTIFACT_NOT_FOUND: 'The session has no artifact with this id',
  API_ERR_ARTIFACT_FILE_MISSING:
    'The artifact is recorded, but its file cannot be read on this server: removed by hand, or saved by another server of a cluster whose artifact directory this one does not share (TOOLEXEC_ARTIFACT_DIR)',
  API_ERR_RULE_NOT_FOUND: 'No project rule has this id',
  API_ERR_RULE_NOT_OFFERED: "A decision's `rules` are not the rules of one of the request's `suggestedRules`, or came without scope project: a person adds only a rule that was offered",
  API_ERR_TOOL_NOT_FOUND: 'No tool has this name',
  API_ERR_KEY_NOT_FOUND: 'No key has this id (among those the caller may manage)',
  API_ERR_LINK_NOT_FOUND: 'The session has no link with this id (among those the caller may manage)',
  API_ERR_REQUEST_TIMEOUT: 'The request did not arrive whole within the request timeout; nothing of it was processed',
  API_ERR_SESSION_EXISTS: 'A session with this id already exists',
  API_ERR_SESSION_DIFFERS: "POST /schedules' createSession names a session that exists with other fields (workspace, permission mode, ...); nothing was stored",
  API_ERR_WORKSPACE_IN_INSTALL: "The session's workspace would be inside the server's own install directory: give it another (or set TOOLEXEC_WORKSPACE)",
  API_ERR_SESSION_BUSY: 'The session still has work going on: abort it first',
  API_ERR_CALL_ID_TAKEN: 'The call id is already used in this session',
  EXEC_ERR_DUPLICATE_CALL_ID: 'Two calls of one schedule have the same id',
  EXEC_ERR_DUPLICATE_TOOL: 'A tool with this name is already registered',
  API_ERR_SCHEDULE_NOT_OPEN: 'The schedule is no longer open for more calls',
  API_ERR_PERMISSION_DECIDED: 'The permission request was already decided: a decision is valid once (`context` has the decision that holds)',
  API_ERR_PERMISSION_CLOSED: "The permission request closed without a person's decision: its call was aborted or timed out, it was superseded by a request for other input, or its session was deleted",
  API_ERR_PERMISSION_INPUT_CHANGED: "The decision's `inputHash` is not the hash of the input this request shows: nobody may approve one input and have another run",
  API_ERR_FOUR_EYES: 'The session, or a fourEyes rule of the server, puts the call under four eyes and the deciding key scheduled it: another key must decide',
  API_ERR_TOOL_NOT_DELETABLE: 'Only client-defined HTTP tools can be removed',
  API_ERR_BODY_TOO_LARGE: 'The body is over the size limit (10 MiB)',
  API_ERR_URI_TOO_LONG: 'A path parameter is too long',
  API_ERR_UNSUPPORTED_MEDIA_TYPE: 'The body is not application/json',
  API_ERR_RANGE: 'The Range cannot be satisfied for the artifact (Content-Range has its size)',
  API_ERR_TOO_MANY_SCHEDULES: 'Too many schedules wait to start; nothing was stored; retry after Retry-After seconds',
  API_ERR_HEADERS_TOO_LARGE: 'The request headers are too large',
  API_ERR_NOT_ACCEPTABLE: 'The events route answers only text/event-stream and the Accept header refuses it',
  API_ERR_INTERNAL: 'An unexpected failure of the server (logged); the request may be retried',
  API_ERR_STORAGE_UNAVAILABLE: 'The database cannot be reached or did not answer in time: retry later',
  API_ERR_SESSION_MOVING:
    'The session is run by another server of the cluster, which does not answer now: retry after Retry-After; the session moves on to a server that answers once its lease runs out',
  API_ERR_STORAGE_CORRUPT: 'The database is damaged: the operator must restore it',
  API_ERR_SHUTTING_DOWN: 'The server is stopping and takes no new work',
  API_ERR_STORAGE_FULL: 'No space left in the data directory: new work is refused until space is freed',
} as const satisfies Partial<Record<ErrorCode, string>>

export type ApiErrorCode = keyof typeof API_ERROR_CODES

export function isApiErrorCode(code: unknown): code is ApiErrorCode {
  return typeof code === 'string' && Object.hasOwn(API_ERROR_CODES, code)
}

export const ApiErrorCodeSchema = Type.Unsafe<ApiErrorCode>(
  Type.Union(
    Object.entries(API_ERROR_CODES).map(([code, description]) => Type.Literal(code, { description })),
    { $id: 'ErrorCode', description: 'What went wrong, one of a fixed set: match on it, not on the message' },
  ),
)
