/**
 * @module Every SQL statement of the PostgreSQL store. A read is prepared once per connection,
 * under its key; a write goes with its unit of work, its values written into its text.
 */

/** One statement: `$n` in `text` stands for `values[n - 1]`. */
export interface Statement {
  readonly name?: string | undefined
  readonly text: string
  readonly values?: readonly unknown[] | undefined
}

const SQL = {
  insertSession: 'INSERT INTO sessions (id, workspace, permission_mode, interactive, permission_timeout_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
  insertSessionSandbox: 'INSERT INTO session_sandbox (session_id, settings_json) VALUES ($1, $2)',
  getSession:
    'SELECT s.*, b.settings_json AS sandbox_json, (SELECT 1 FROM session_four_eyes f WHERE f.session_id = s.id) AS four_eyes, (SELECT label FROM session_labels l WHERE l.session_id = s.id) AS label FROM sessions s LEFT JOIN session_sandbox b ON b.session_id = s.id WHERE s.id = $1',
  sessionIds: 'SELECT id FROM sessions',
  sessionsBefore: `SELECT s.*, b.settings_json AS sandbox_json, (SELECT 1 FROM session_four_eyes f WHERE f.session_id = s.id) AS four_eyes, (SELECT label FROM session_labels l WHERE l.session_id = s.id) AS label FROM sessions s LEFT JOIN session_sandbox b ON b.session_id = s.id
      WHERE (s.created_at, s.id) < ($1, $2) ORDER BY s.created_at DESC, s.id DESC LIMIT $3`,
  sessionCounts: `SELECT
      (SELECT count(*) FROM schedules WHERE session_id = $1) AS schedules,
      (SELECT count(*) FROM tool_calls WHERE session_id = $1) AS calls,
      (SELECT count(*) FROM permission_requests WHERE session_id = $1 AND status = 'pending') AS "pendingPermissions"`,
  insertSchedule: `INSERT INTO schedules (id, session_id, turn_id, arrival, status, groups_json, created_at)
      VALUES ($1, $2, $3, (SELECT COALESCE(MAX(arrival), 0) + 1 FROM schedules WHERE session_id = $2), $4, $5, $6)`,
  getSchedule: 'SELECT * FROM schedules WHERE id = $1',
  setScheduleStatus: 'UPDATE schedules SET status = $1, completed_at = $2 WHERE id = $3',
  setScheduleGroups: 'UPDATE schedules SET groups_json = $1 WHERE id = $2',
  markSchedulesAborted: `INSERT INTO schedule_aborts (schedule_id, session_id, aborted_at)
      SELECT id, session_id, $1 FROM schedules WHERE session_id = $2 AND completed_at IS NULL ON CONFLICT DO NOTHING`,
  scheduleAborted: 'SELECT 1 FROM schedule_aborts WHERE schedule_id = $1',
  unfinishedSchedules: 'SELECT * FROM schedules WHERE completed_at IS NULL ORDER BY session_id, arrival',
  runningCalls: `SELECT session_id AS "sessionId", id FROM tool_calls WHERE status = 'running'
      AND schedule_id IN (SELECT id FROM schedules WHERE completed_at IS NULL)`,
  insertCall: "INSERT INTO tool_calls (session_id, id, schedule_id, position, name, input_json, depends_on_json, status) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending')",
  markCallRunning:
    // A resolved input that is the input is not stored twice; toCallRow reads it back.
    "UPDATE tool_calls SET resolved_input_json = NULLIF($1, input_json), flags_json = $2, started_at = $3, status = 'running' WHERE session_id = $4 AND id = $5",
  setCallStatus: 'UPDATE tool_calls SET status = $1 WHERE session_id = $2 AND id = $3',
  completeCall: 'UPDATE tool_calls SET status = $1, completed_at = $2, result_json = $3 WHERE session_id = $4 AND id = $5',
  callsOfSchedule: 'SELECT * FROM tool_calls WHERE schedule_id = $1 ORDER BY position',
  getCall: 'SELECT * FROM tool_calls WHERE session_id = $1 AND id = $2',
  history: `SELECT c.*, s.turn_id FROM tool_calls c JOIN schedules s ON s.id = c.schedule_id
      WHERE c.session_id = $1 AND c.result_json IS NOT NULL ORDER BY s.arrival, c.position`,
  insertPermission: `INSERT INTO permission_requests (id, session_id, call_id, tool_name, input_json, preview_json, risk_level, reason,
      suggested_rule, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10) ON CONFLICT (id) DO NOTHING`,
  decidePermission: "UPDATE permission_requests SET status = $1, decided_by = $2, message = $3, scope = $4, decided_at = $5 WHERE id = $6 AND status = 'pending'",
  getPermission: `SELECT p.*, d.decider_id, d.decider_name FROM permission_requests p
      LEFT JOIN permission_deciders d ON d.permission_id = p.id WHERE p.id = $1`,
  pendingPermissions: "SELECT * FROM permission_requests WHERE status = 'pending' ORDER BY created_at, id",
  pendingPermissionsOfSession: "SELECT * FROM permission_requests WHERE status = 'pending' AND session_id = $1 ORDER BY created_at, id",
  lastPermissionForCall: 'SELECT * FROM permission_requests WHERE session_id = $1 AND call_id = $2 ORDER BY created_at DESC LIMIT 1',
  insertGrant: 'INSERT INTO session_grants (session_id, tool_name, rule_key, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
  grantFor: `INSERT INTO session_grants (session_id, tool_name, rule_key, created_at)
      SELECT session_id, tool_name, COALESCE(suggested_rule, tool_name), $2 FROM permission_requests WHERE id = $1 ON CONFLICT DO NOTHING`,
  hasGrant: 'SELECT 1 FROM session_grants WHERE session_id = $1 AND tool_name = $2 AND rule_key = $3',
  insertArtifact: `INSERT INTO artifacts (id, session_id, call_id, path, uri, bytes, media_type, retention, sha256, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  getArtifact: 'SELECT * FROM artifacts WHERE session_id = $1 AND id = $2',
  insertEvent: 'INSERT INTO events (session_id, seq, type, at, data) VALUES ($1, $2, $3, $4, $5)',
  eventsAfter: 'SELECT session_id AS "sessionId", seq, type, data FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
  // The events whose predecessors on the page hold fewer than $4 characters, the first one always:
  // never fewer than the page keeps, since PostgreSQL counts a character outside the BMP once where
  // JavaScript counts it twice.
  eventsAfterUpTo: `SELECT "sessionId", seq, type, data FROM (
        SELECT session_id AS "sessionId", seq, type, data,
          COALESCE(SUM(length(data)) OVER (ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3
      ) page WHERE before < $4 OR before = 0 ORDER BY seq`,
  // Pages of several sessions at once (event-page-batch.ts), each as eventsAfterUpTo reads it (no bound of characters where $4's is NULL), numbered as asked.
  eventsAfterEach: `SELECT r.n, e."sessionId", e.seq, e.type, e.data
      FROM unnest($1::text[], $2::bigint[], $3::int[], $4::bigint[]) WITH ORDINALITY AS r(session_id, after_seq, max_rows, max_chars, n)
      CROSS JOIN LATERAL (
        SELECT session_id AS "sessionId", seq, type, data,
          COALESCE(SUM(length(data)) OVER (ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM events WHERE session_id = r.session_id AND seq > r.after_seq ORDER BY seq LIMIT r.max_rows
      ) e
      WHERE r.max_chars IS NULL OR e.before < r.max_chars OR e.before = 0
      ORDER BY r.n, e.seq`,
  lastSeq: 'SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE session_id = $1',
  setPermissionMode: 'UPDATE sessions SET permission_mode = $1 WHERE id = $2',
  insertProjectRule: 'INSERT INTO project_rules (id, workspace, rule, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
  projectRuleFor: `INSERT INTO project_rules (id, workspace, rule, created_at)
      SELECT $1, s.workspace, COALESCE(CAST($4 AS text), p.suggested_rule, p.tool_name), $3 FROM permission_requests p JOIN sessions s ON s.id = p.session_id
      WHERE p.id = $2 ON CONFLICT DO NOTHING`,
  projectRules: 'SELECT id, workspace, rule, created_at AS "createdAt" FROM project_rules ORDER BY created_at, id',
  projectRulesOf: 'SELECT rule FROM project_rules WHERE workspace = $1 ORDER BY created_at, id',
  deleteProjectRule: 'DELETE FROM project_rules WHERE id = $1',
  getTodos: 'SELECT todos_json FROM todos WHERE session_id = $1',
  setTodos: `INSERT INTO todos (session_id, todos_json, updated_at) VALUES ($1, $2, $3)
      ON CONFLICT (session_id) DO UPDATE SET todos_json = excluded.todos_json, updated_at = excluded.updated_at`,
  putClientTool: `INSERT INTO client_http_tools (name, definition_json, created_at) VALUES ($1, $2, $3)
      ON CONFLICT (name) DO UPDATE SET definition_json = excluded.definition_json, created_at = excluded.created_at`,
  deleteClientTool: 'DELETE FROM client_http_tools WHERE name = $1',
  clientTools: 'SELECT definition_json FROM client_http_tools ORDER BY created_at, name',
  unfinishedScheduleIdsOfSession: 'SELECT id FROM schedules WHERE session_id = $1 AND completed_at IS NULL',
  artifactBytesOfSession: 'SELECT COALESCE(SUM(bytes), 0)::bigint AS bytes FROM artifacts WHERE session_id = $1',
  artifactBytesOfCall: 'SELECT COALESCE(SUM(bytes), 0)::bigint AS bytes FROM artifacts WHERE session_id = $1 AND call_id = $2',
  artifactPathsOfSession: 'SELECT path FROM artifacts WHERE session_id = $1',
  insertBackgroundTask: `INSERT INTO background_tasks (session_id, id, call_id, command, description, node_id, output_path, status, started_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, 'running', $8)`,
  endBackgroundTask: 'UPDATE background_tasks SET status = $1, exit_code = $2, output_path = $3, ended_at = $4 WHERE session_id = $5 AND id = $6',
  markBackgroundTaskLost: "UPDATE background_tasks SET status = 'lost', ended_at = $1 WHERE session_id = $2 AND id = $3 AND status = 'running'",
  getBackgroundTask: 'SELECT * FROM background_tasks WHERE session_id = $1 AND id = $2',
  runningBackgroundTasks: "SELECT * FROM background_tasks WHERE status = 'running' ORDER BY started_at, session_id, id",
  runningBackgroundTasksOfSession: "SELECT * FROM background_tasks WHERE status = 'running' AND session_id = $1 ORDER BY started_at, id",
  backgroundTaskOutputPaths: 'SELECT output_path FROM background_tasks WHERE session_id = $1 AND output_path IS NOT NULL',
  insertKey: `INSERT INTO api_keys (id, name, secret_hash, role, scopes_json, sessions_json, workspaces_json, expires_at, created_at, created_by)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  revokeKey: 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
  revokeSessionLinks: "UPDATE api_keys SET revoked_at = $1 WHERE sessions_json = $2 AND substr(id, 1, 5) = 'link_' AND revoked_at IS NULL",
  getKey: 'SELECT * FROM api_keys WHERE id = $1',
  keyBySecretHash: 'SELECT * FROM api_keys WHERE secret_hash = $1',
  keys: 'SELECT * FROM api_keys ORDER BY created_at, id',
  // The function takes the audit chain's lock and links the entry to the last one committed (migration 016).
  appendAudit: 'SELECT toolexec_audit_append($1, $2, $3, $4, $5, $6, $7)',
  auditPage: `SELECT * FROM audit_log WHERE seq > $1 AND ($2::text IS NULL OR kind = $2) AND ($3::text IS NULL OR actor_id = $3) AND ($4::text IS NULL OR session_id = $4)
      AND ($5::text IS NULL OR at >= $5) AND ($6::text IS NULL OR at < $6) ORDER BY seq LIMIT $7`,
  insertSessionFourEyes: 'INSERT INTO session_four_eyes (session_id) VALUES ($1)',
  setSessionLabel: 'INSERT INTO session_labels (session_id, label) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET label = excluded.label',
  insertCallScheduler: 'INSERT INTO call_schedulers (session_id, call_id, scheduled_by) VALUES ($1, $2, $3)',
  callScheduler: 'SELECT scheduled_by FROM call_schedulers WHERE session_id = $1 AND call_id = $2',
  // Before the decision itself: only a request still pending gets its decider.
  decidePermissionBy: `INSERT INTO permission_deciders (permission_id, session_id, decider_id, decider_name)
      SELECT id, session_id, $1, $2 FROM permission_requests WHERE id = $3 AND status = 'pending' ON CONFLICT (permission_id) DO NOTHING`,
  closedPermissionSession: 'SELECT session_id FROM closed_permissions WHERE id = $1',
  closeSessionPermissions: 'INSERT INTO closed_permissions (id, session_id) SELECT id, session_id FROM permission_requests WHERE session_id = $1 ON CONFLICT (id) DO NOTHING',
  deleteSessionFourEyes: 'DELETE FROM session_four_eyes WHERE session_id = $1',
  deleteSessionLabel: 'DELETE FROM session_labels WHERE session_id = $1',
  deleteSessionCallSchedulers: 'DELETE FROM call_schedulers WHERE session_id = $1',
  deleteSessionDeciders: 'DELETE FROM permission_deciders WHERE session_id = $1',
  deleteSessionCalls: 'DELETE FROM tool_calls WHERE session_id = $1',
  deleteSessionPermissions: 'DELETE FROM permission_requests WHERE session_id = $1',
  deleteSessionGrants: 'DELETE FROM session_grants WHERE session_id = $1',
  deleteSessionTodos: 'DELETE FROM todos WHERE session_id = $1',
  deleteSessionSandbox: 'DELETE FROM session_sandbox WHERE session_id = $1',
  deleteSessionArtifacts: 'DELETE FROM artifacts WHERE session_id = $1',
  deleteSessionEvents: 'DELETE FROM events WHERE session_id = $1',
  deleteSessionScheduleAborts: 'DELETE FROM schedule_aborts WHERE session_id = $1',
  deleteSessionBackgroundTasks: 'DELETE FROM background_tasks WHERE session_id = $1',
  deleteSessionSchedules: 'DELETE FROM schedules WHERE session_id = $1',
  deleteSessionRow: 'DELETE FROM sessions WHERE id = $1',
} as const

export type StatementKey = keyof typeof SQL

/** The statement `key` with `values`, named so that a connection prepares it once. */
export function statement(key: StatementKey, ...values: unknown[]): Statement {
  return { name: key, text: SQL[key], values }
}

/**
 * The writes a unit may make many of, each as one statement for all its rows, each column's
 * values as one array: PostgreSQL parses and plans one statement instead of one per row (a
 * unit's text is never prepared). Each row holds the values of the statement of the same key,
 * in the same order (the types below); an UPDATE's rows name distinct rows of its table.
 */
const MANY = {
  // A session's schedules of one unit arrive after its last one, in the unit's order (`place`).
  insertSchedule: {
    types: ['text', 'text', 'text', 'text', 'text', 'text'],
    sql: (rows: string) => `INSERT INTO schedules (id, session_id, turn_id, arrival, status, groups_json, created_at)
      SELECT v.id, v.session_id, v.turn_id,
        (SELECT COALESCE(MAX(s.arrival), 0) FROM schedules s WHERE s.session_id = v.session_id) + row_number() OVER (PARTITION BY v.session_id ORDER BY v.place),
        v.status, v.groups_json, v.created_at
      FROM ${rows} WITH ORDINALITY AS v (id, session_id, turn_id, status, groups_json, created_at, place)`,
  },
  insertCallScheduler: { types: ['text', 'text', 'text'], sql: (rows: string) => `INSERT INTO call_schedulers (session_id, call_id, scheduled_by) SELECT * FROM ${rows}` },
  insertCall: {
    types: ['text', 'text', 'text', 'bigint', 'text', 'text', 'text'],
    sql: (rows: string) => `INSERT INTO tool_calls (session_id, id, schedule_id, position, name, input_json, depends_on_json, status) SELECT *, 'pending' FROM ${rows}`,
  },
  markCallRunning: {
    types: ['text', 'text', 'text', 'text', 'text'],
    sql: (rows: string) => `UPDATE tool_calls t SET resolved_input_json = NULLIF(v.resolved, t.input_json), flags_json = v.flags, started_at = v.at, status = 'running'
      FROM ${rows} AS v (resolved, flags, at, session_id, id) WHERE t.session_id = v.session_id AND t.id = v.id`,
  },
  completeCall: {
    types: ['text', 'text', 'text', 'text', 'text'],
    sql: (rows: string) => `UPDATE tool_calls t SET status = v.status, completed_at = v.at, result_json = v.result
      FROM ${rows} AS v (status, at, result, session_id, id) WHERE t.session_id = v.session_id AND t.id = v.id`,
  },
  setScheduleStatus: {
    types: ['text', 'text', 'text'],
    sql: (rows: string) => `UPDATE schedules s SET status = v.status, completed_at = v.completed_at FROM ${rows} AS v (status, completed_at, id) WHERE s.id = v.id`,
  },
  insertEvent: { types: ['text', 'bigint', 'text', 'text', 'text'], sql: (rows: string) => `INSERT INTO events (session_id, seq, type, at, data) SELECT * FROM ${rows}` },
} as const

export type ManyKey = keyof typeof MANY

export const MANY_KEYS: ReadonlySet<string> = new Set(Object.keys(MANY))

/** `unnest($1::text[], $2::bigint[], …)`: the rows of a repeated write, a column per array. */
function unnestOf(types: readonly string[]): string {
  return `unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})`
}

const MANY_SQL = Object.fromEntries(Object.entries(MANY).map(([key, { types, sql }]) => [key, sql(unnestOf(types))])) as Record<ManyKey, string>

/** The statement `key` of every row at once. */
export function statementOfMany(key: ManyKey, rows: readonly (readonly unknown[])[]): Statement {
  const columns = MANY[key].types.map((_, column) => rows.map((row) => row[column]))
  return { text: MANY_SQL[key], values: columns }
}

const MANY_TABLES = /\b(schedules|call_schedulers|tool_calls|events)\b/

/**
 * Whether a write of this key may share a transaction with other units' writes (group-commit.ts):
 * the repeated writes, which go last, each kind in one statement for every unit; and a write that
 * neither reads nor writes their tables, so that moving those before it changes nothing.
 */
export function mayJoinOtherUnits(key: StatementKey): boolean {
  return MANY_KEYS.has(key) || !MANY_TABLES.test(SQL[key])
}
