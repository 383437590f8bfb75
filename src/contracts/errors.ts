/**
 * @module The catalogue of coded errors. Callers match on `code`, never on instanceof.
 * Domain errors know nothing about HTTP; the edge maps codes to statuses.
 */
import { format } from 'node:util'

export const ERROR_CATALOGUE = {
  EXEC_ERR_TOOL_NOT_FOUND: 'Tool not found: %s',
  EXEC_ERR_INVALID_INPUT: 'Invalid input for %s',
  EXEC_ERR_DEPENDENCY_CYCLE: 'Dependency cycle among calls: %s',
  EXEC_ERR_UNKNOWN_DEPENDENCY: 'Call %s depends on unknown call %s',
  EXEC_ERR_DUPLICATE_CALL_ID: 'Duplicate call id: %s',
  EXEC_ERR_TIMEOUT: 'Tool execution timed out after %sms',
  EXEC_ERR_CANCELLED: 'Tool execution cancelled',
  EXEC_ERR_TURN_STOPPED: 'Tool cancelled because a previous tool result requested a turn stop.',
  EXEC_ERR_PERMISSION_DENIED: 'Permission denied for %s',
  EXEC_ERR_HOOK_BLOCKED: 'Blocked by PreToolUse hook',
  EXEC_ERR_POST_HOOK_BLOCKED: 'Blocked by PostToolUse hook',
  EXEC_ERR_BUSINESS: '%s',
  EXEC_ERR_HANDLER: '%s',
  EXEC_ERR_ADMISSION_ABORTED: 'Model request aborted while waiting for admission',
  EXEC_ERR_INVALID_TOOL: 'Invalid tool entry %s: %s',
  EXEC_ERR_DUPLICATE_TOOL: 'A tool named %s is already registered',
  ART_ERR_WRITE_FAILED: 'Artifact write failed: %s',
  ART_ERR_CALL_CAP: 'Not saved: %s bytes is over the per-call artifact cap of %s bytes (TOOLEXEC_ARTIFACT_CALL_CAP_BYTES)',
  ART_ERR_SESSION_CAP: 'Not saved: session %s already has %s bytes of artifacts, and %s more would pass the per-session cap of %s bytes (TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES)',
  API_ERR_VALIDATION: '%s',
  API_ERR_BAD_REQUEST: 'The request could not be read: %s',
  API_ERR_BODY_TOO_LARGE: '%s: the limit is %s bytes',
  API_ERR_URI_TOO_LONG: '%s',
  API_ERR_UNSUPPORTED_MEDIA_TYPE: '%s: request bodies are application/json',
  API_ERR_HEADERS_TOO_LARGE: 'The request headers are too large',
  API_ERR_NOT_ACCEPTABLE: 'This route answers only text/event-stream, which the Accept header (%s) refuses',
  API_ERR_UNAUTHORIZED: 'Missing or invalid bearer token',
  API_ERR_IDENTITY_PROVIDER_UNAVAILABLE: "The identity provider's keys (TOOLEXEC_JWT_JWKS_URL) cannot be fetched: %s; retry in a moment",
  API_ERR_HOST_NOT_LOOPBACK: 'Host %s is not a loopback name: without a token the server answers only localhost, 127.0.0.1 and [::1]',
  API_ERR_FORBIDDEN: '%s',
  API_ERR_KEY_TOO_WIDE: 'A key cannot mint a key with more than it has: %s',
  API_ERR_KEY_NOT_FOUND: 'Key %s not found',
  API_ERR_ORIGIN_NOT_ALLOWED: '%s may not call this server: without a token it answers pages from loopback origins and TOOLEXEC_CORS_ORIGINS only; set TOOLEXEC_TOKEN to call it from elsewhere',
  API_ERR_NOT_FOUND: 'Route %s %s not found',
  API_ERR_SESSION_NOT_FOUND: 'Session %s not found%s',
  API_ERR_SESSION_EXISTS: 'Session %s already exists',
  API_ERR_SESSION_DIFFERS: 'Session %s already exists with %s; leave createSession out, or give it the fields the session has',
  API_ERR_WORKSPACE_IN_INSTALL:
    'Workspace %s is inside the server\'s own install directory (%s), where no session may work; give the session a workspace of its own ("workspace", or TOOLEXEC_WORKSPACE for sessions that name none)',
  API_ERR_SESSION_BUSY: 'Session %s still has work going on (%s); abort it with POST /sessions/%s/abort, then delete it',
  API_ERR_SCHEDULE_NOT_FOUND: 'Schedule %s not found',
  API_ERR_SCHEDULE_NOT_OPEN: 'Schedule %s is not open for more calls (status %s)',
  API_ERR_CALL_ID_TAKEN: 'Call id %s is already used in session %s',
  API_ERR_BAD_DEPENDENCY: 'Call %s depends on %s, which is not an earlier call of this schedule',
  API_ERR_PERMISSION_NOT_FOUND: 'Permission request %s not found',
  API_ERR_PERMISSION_DECIDED: 'Permission request %s was already decided: %s by %s; a decision is valid once',
  API_ERR_PERMISSION_CLOSED: 'Permission request %s is closed (%s): nobody decides it any more',
  API_ERR_PERMISSION_INPUT_CHANGED: 'Permission request %s shows an input whose hash is %s, not %s: read the request again and decide what it shows',
  API_ERR_FOUR_EYES: '%s is under four eyes: %s scheduled call %s, so another key must decide its approval',
  API_ERR_LINK_NOT_FOUND: 'Session %s has no link %s',
  API_ERR_ARTIFACT_NOT_FOUND: 'Artifact %s not found in session %s',
  API_ERR_ARTIFACT_FILE_MISSING: 'Artifact %s of session %s is recorded, but its file cannot be read on this server (%s): the servers of a cluster share one TOOLEXEC_ARTIFACT_DIR',
  API_ERR_RANGE: 'Range %s cannot be satisfied for %s bytes',
  API_ERR_SHUTTING_DOWN: 'The server is shutting down',
  API_ERR_REQUEST_TIMEOUT: 'The request did not arrive whole (headers and body) within the request timeout (TOOLEXEC_REQUEST_TIMEOUT_MS); nothing of it was processed',
  API_ERR_TOO_MANY_SCHEDULES: 'Too many schedules waiting to start: %s. Nothing was stored; retry in %s s',
  API_ERR_STORAGE_FULL: 'No space left in the data directory %s: new work is refused until space is freed there',
  API_ERR_INTERNAL: 'Internal error',
  API_ERR_RULE_NOT_FOUND: 'Permission rule %s not found',
  API_ERR_RULE_NOT_OFFERED: 'Permission request %s offers no choice of rules %s: send the `rules` of one of its `suggestedRules`, with scope project',
  API_ERR_TOOL_NOT_FOUND: 'Tool %s not found',
  API_ERR_TOOL_NOT_DELETABLE: 'Tool %s is not a client-defined HTTP tool and cannot be deleted',
  API_ERR_STORAGE_UNAVAILABLE: 'The database does not answer (%s); retry once it is back',
  API_ERR_SESSION_MOVING: 'Session %s is run by another server of the cluster, which does not answer now (%s); retry in a moment: the session moves on to a server that answers',
  API_ERR_STORAGE_CORRUPT: 'The database is damaged (%s): stop the server and restore toolexec.db from a backup',
  STORE_ERR_DATA_DIR_LOCKED: 'Data directory %s is in use by another toolexec server (PID %s); stop it or start with another --data-dir',
  STORE_ERR_DB_DAMAGED: 'Database %s is damaged: %s; restore it from a backup or move it away',
  STORE_ERR_DB_FOREIGN: 'Database %s is not a toolexec database: %s; start with another --data-dir',
  STORE_ERR_DB_UNREACHABLE: 'PostgreSQL database %s cannot be reached: %s; check TOOLEXEC_DATABASE_URL and that the server runs',
  STORE_ERR_DB_AUTH: "PostgreSQL refused the login to %s: %s; check the user and password in TOOLEXEC_DATABASE_URL (or its passfile) and the server's pg_hba.conf",
  STORE_ERR_DB_MISSING: 'PostgreSQL database %s does not exist: %s; create it (createdb) or name an existing database in TOOLEXEC_DATABASE_URL',
  STORE_ERR_DB_NO_SERVER: 'No PostgreSQL server answers for %s: %s; start it, or correct the host, port or socket directory in TOOLEXEC_DATABASE_URL',
  STORE_ERR_DB_NEWER: 'Database %s was written by a newer toolexec (schema version %s; this build knows up to %s); upgrade toolexec to open it',
  CONF_ERR_DATA_DIR: 'Data directory %s cannot be used: %s; fix it or give another --data-dir (TOOLEXEC_DATA_DIR)',
  CONF_ERR_WORKSPACE: 'Workspace %s %s; give an existing directory as --workspace (TOOLEXEC_WORKSPACE)',
  CONF_ERR_TOOLS: 'Config file %s: %s: %s',
  CONF_ERR_SANDBOX: 'Config file %s: sandbox: %s',
  CONF_ERR_JWT_KEY_FILE: "TOOLEXEC_JWT_KEY_FILE %s cannot be used: %s; give the identity provider's public key as PEM, or its JWK or JWK Set as JSON",
  CONF_ERR_SANDBOX_UNAVAILABLE: 'TOOLEXEC_SANDBOX is required, but no sandbox can start: %s',
  TOOL_ERR_MCP_UNAVAILABLE: 'MCP server "%s" is unavailable: %s',
  TOOL_ERR_MCP_CONNECTION_LOST: 'MCP server "%s" closed the connection during %s; it will be restarted on the next call%s',
  TOOL_ERR_MCP_REQUEST: 'MCP server "%s" failed %s: %s',
  TOOL_ERR_HTTP_UNREACHABLE: 'HTTP tool %s could not reach %s: %s',
  TOOL_ERR_HTTP_STATUS: 'HTTP tool %s: %s replied with status %s%s',
  TOOL_ERR_HTTP_REPLY: 'HTTP tool %s: malformed reply from %s: %s',
} as const

export type ErrorCode = keyof typeof ERROR_CATALOGUE

export class ToolexecError extends Error {
  readonly code: ErrorCode
  readonly context: Readonly<Record<string, unknown>> | undefined

  constructor(code: ErrorCode, args: readonly unknown[] = [], options?: { cause?: unknown; context?: Record<string, unknown> }) {
    super(format(ERROR_CATALOGUE[code], ...args), options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ToolexecError'
    this.code = code
    this.context = options?.context
  }
}

/** A start refused for a reason the operator must fix: `npm start` prints its one-line message and exits 2. */
export class StartupError extends ToolexecError {
  constructor(code: ErrorCode, args: readonly unknown[] = [], options?: { cause?: unknown }) {
    super(code, args, options)
    this.name = 'StartupError'
  }
}

export function hasCode(error: unknown, code: ErrorCode): error is ToolexecError {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code
}
