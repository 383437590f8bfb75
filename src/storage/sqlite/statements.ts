/** @module Every SQL statement of the store, prepared once per database. */
import type Database from 'better-sqlite3'
import { GENESIS_HASH } from '../audit-chain.js'
import type { Db } from './database.js'

const SQL = {
  insertSession: 'INSERT INTO sessions (id, workspace, permission_mode, interactive, permission_timeout_ms, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  insertSessionSandbox: 'INSERT INTO session_sandbox (session_id, settings_json) VALUES (?, ?)',
  getSession:
    'SELECT s.*, b.settings_json AS sandbox_json, (SELECT 1 FROM session_four_eyes f WHERE f.session_id = s.id) AS four_eyes, (SELECT label FROM session_labels l WHERE l.session_id = s.id) AS label FROM sessions s LEFT JOIN session_sandbox b ON b.session_id = s.id WHERE s.id = ?',
  sessionIds: 'SELECT id FROM sessions',
  sessionsBefore: `SELECT s.*, b.settings_json AS sandbox_json, (SELECT 1 FROM session_four_eyes f WHERE f.session_id = s.id) AS four_eyes, (SELECT label FROM session_labels l WHERE l.session_id = s.id) AS label FROM sessions s LEFT JOIN session_sandbox b ON b.session_id = s.id
      WHERE (s.created_at, s.id) < (?, ?) ORDER BY s.created_at DESC, s.id DESC LIMIT ?`,
  sessionCounts: `SELECT
      (SELECT count(*) FROM schedules WHERE session_id = ?) AS schedules,
      (SELECT count(*) FROM tool_calls WHERE session_id = ?) AS calls,
      (SELECT count(*) FROM permission_requests WHERE session_id = ? AND status = 'pending') AS pendingPermissions`,
  // Values in the order both backends take them (unit-writes.ts); the session's id is used twice.
  insertSchedule: `INSERT INTO schedules (id, session_id, turn_id, arrival, status, groups_json, created_at)
      SELECT v.id, v.session_id, v.turn_id, (SELECT COALESCE(MAX(arrival), 0) + 1 FROM schedules WHERE session_id = v.session_id), v.status, v.groups_json, v.created_at
      FROM (SELECT ? AS id, ? AS session_id, ? AS turn_id, ? AS status, ? AS groups_json, ? AS created_at) v`,
  getSchedule: 'SELECT * FROM schedules WHERE id = ?',
  setScheduleStatus: 'UPDATE schedules SET status = ?, completed_at = ? WHERE id = ?',
  setScheduleGroups: 'UPDATE schedules SET groups_json = ? WHERE id = ?',
  markSchedulesAborted: `INSERT OR IGNORE INTO schedule_aborts (schedule_id, session_id, aborted_at)
      SELECT id, session_id, ? FROM schedules WHERE session_id = ? AND completed_at IS NULL`,
  scheduleAborted: 'SELECT 1 FROM schedule_aborts WHERE schedule_id = ?',
  unfinishedSchedules: 'SELECT * FROM schedules WHERE completed_at IS NULL ORDER BY session_id, arrival',
  runningCalls: `SELECT session_id AS sessionId, id FROM tool_calls WHERE status = 'running'
      AND schedule_id IN (SELECT id FROM schedules WHERE completed_at IS NULL)`,
  insertCall: "INSERT INTO tool_calls (session_id, id, schedule_id, position, name, input_json, depends_on_json, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')",
  markCallRunning:
    // A resolved input that is the input is not stored twice; toCallRow reads it back.
    "UPDATE tool_calls SET resolved_input_json = NULLIF(?, input_json), flags_json = ?, started_at = ?, status = 'running' WHERE session_id = ? AND id = ?",
  setCallStatus: 'UPDATE tool_calls SET status = ? WHERE session_id = ? AND id = ?',
  completeCall: 'UPDATE tool_calls SET status = ?, completed_at = ?, result_json = ? WHERE session_id = ? AND id = ?',
  callsOfSchedule: 'SELECT * FROM tool_calls WHERE schedule_id = ? ORDER BY position',
  getCall: 'SELECT * FROM tool_calls WHERE session_id = ? AND id = ?',
  history: `SELECT c.*, s.turn_id FROM tool_calls c JOIN schedules s ON s.id = c.schedule_id
      WHERE c.session_id = ? AND c.result_json IS NOT NULL ORDER BY s.arrival, c.position`,
  insertPermission: `INSERT INTO permission_requests (id, session_id, call_id, tool_name, input_json, preview_json, risk_level, reason,
      suggested_rule, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT (id) DO NOTHING`,
  decidePermission: "UPDATE permission_requests SET status = ?, decided_by = ?, message = ?, scope = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
  getPermission: `SELECT p.*, d.decider_id, d.decider_name FROM permission_requests p
      LEFT JOIN permission_deciders d ON d.permission_id = p.id WHERE p.id = ?`,
  pendingPermissions: "SELECT * FROM permission_requests WHERE status = 'pending' ORDER BY created_at, id",
  pendingPermissionsOfSession: "SELECT * FROM permission_requests WHERE status = 'pending' AND session_id = ? ORDER BY created_at, id",
  lastPermissionForCall: 'SELECT * FROM permission_requests WHERE session_id = ? AND call_id = ? ORDER BY created_at DESC LIMIT 1',
  insertGrant: 'INSERT OR IGNORE INTO session_grants (session_id, tool_name, rule_key, created_at) VALUES (?, ?, ?, ?)',
  grantFor: `INSERT INTO session_grants (session_id, tool_name, rule_key, created_at)
      SELECT p.session_id, p.tool_name, COALESCE(p.suggested_rule, p.tool_name), v.at FROM (SELECT ? AS id, ? AS at) v
      JOIN permission_requests p ON p.id = v.id WHERE true ON CONFLICT DO NOTHING`,
  hasGrant: 'SELECT 1 FROM session_grants WHERE session_id = ? AND tool_name = ? AND rule_key = ?',
  insertArtifact: `INSERT INTO artifacts (id, session_id, call_id, path, uri, bytes, media_type, retention, sha256, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  getArtifact: 'SELECT * FROM artifacts WHERE session_id = ? AND id = ?',
  insertEvent: 'INSERT INTO events (session_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)',
  eventsAfter: 'SELECT session_id AS sessionId, seq, type, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  lastSeq: 'SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?',
  setPermissionMode: 'UPDATE sessions SET permission_mode = ? WHERE id = ?',
  insertProjectRule: 'INSERT OR IGNORE INTO project_rules (id, workspace, rule, created_at) VALUES (?, ?, ?, ?)',
  projectRuleFor: `INSERT INTO project_rules (id, workspace, rule, created_at)
      SELECT v.rule_id, s.workspace, COALESCE(v.rule, p.suggested_rule, p.tool_name), v.at FROM (SELECT ? AS rule_id, ? AS id, ? AS at, ? AS rule) v
      JOIN permission_requests p ON p.id = v.id JOIN sessions s ON s.id = p.session_id WHERE true ON CONFLICT DO NOTHING`,
  projectRules: 'SELECT id, workspace, rule, created_at AS createdAt FROM project_rules ORDER BY created_at, id',
  projectRulesOf: 'SELECT rule FROM project_rules WHERE workspace = ? ORDER BY created_at, id',
  deleteProjectRule: 'DELETE FROM project_rules WHERE id = ?',
  getTodos: 'SELECT todos_json FROM todos WHERE session_id = ?',
  setTodos: `INSERT INTO todos (session_id, todos_json, updated_at) VALUES (?, ?, ?)
      ON CONFLICT(session_id) DO UPDATE SET todos_json = excluded.todos_json, updated_at = excluded.updated_at`,
  putClientTool: `INSERT INTO client_http_tools (name, definition_json, created_at) VALUES (?, ?, ?)
      ON CONFLICT(name) DO UPDATE SET definition_json = excluded.definition_json, created_at = excluded.created_at`,
  deleteClientTool: 'DELETE FROM client_http_tools WHERE name = ?',
  clientTools: 'SELECT definition_json FROM client_http_tools ORDER BY created_at, name',
  unfinishedScheduleIdsOfSession: 'SELECT id FROM schedules WHERE session_id = ? AND completed_at IS NULL',
  artifactBytesOfSession: 'SELECT COALESCE(SUM(bytes), 0) FROM artifacts WHERE session_id = ?',
  artifactBytesOfCall: 'SELECT COALESCE(SUM(bytes), 0) FROM artifacts WHERE session_id = ? AND call_id = ?',
  artifactPathsOfSession: 'SELECT path FROM artifacts WHERE session_id = ?',
  insertBackgroundTask: `INSERT INTO background_tasks (session_id, id, call_id, command, description, node_id, output_path, status, started_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?)`,
  endBackgroundTask: 'UPDATE background_tasks SET status = ?, exit_code = ?, output_path = ?, ended_at = ? WHERE session_id = ? AND id = ?',
  markBackgroundTaskLost: "UPDATE background_tasks SET status = 'lost', ended_at = ? WHERE session_id = ? AND id = ? AND status = 'running'",
  getBackgroundTask: 'SELECT * FROM background_tasks WHERE session_id = ? AND id = ?',
  runningBackgroundTasks: "SELECT * FROM background_tasks WHERE status = 'running' ORDER BY started_at, session_id, id",
  runningBackgroundTasksOfSession: "SELECT * FROM background_tasks WHERE status = 'running' AND session_id = ? ORDER BY started_at, id",
  backgroundTaskOutputPaths: 'SELECT output_path FROM background_tasks WHERE session_id = ? AND output_path IS NOT NULL',
  insertKey: `INSERT INTO api_keys (id, name, secret_hash, role, scopes_json, sessions_json, workspaces_json, expires_at, created_at, created_by)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  revokeKey: 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  revokeSessionLinks: "UPDATE api_keys SET revoked_at = ? WHERE sessions_json = ? AND substr(id, 1, 5) = 'link_' AND revoked_at IS NULL",
  getKey: 'SELECT * FROM api_keys WHERE id = ?',
  keyBySecretHash: 'SELECT * FROM api_keys WHERE secret_hash = ?',
  keys: 'SELECT * FROM api_keys ORDER BY created_at, id',
  // The chain is computed here, in the unit's transaction, as PostgreSQL's toolexec_audit_append does (migration 016).
  appendAudit: `INSERT INTO audit_log (seq, at, kind, actor_id, actor_name, session_id, detail_json, prev_hash, hash)
      SELECT COALESCE(l.seq, 0) + 1, v.at, v.kind, v.actor_id, v.actor_name, v.session_id, v.detail_json, COALESCE(l.hash, '${GENESIS_HASH}'),
        toolexec_sha256(COALESCE(l.hash, '${GENESIS_HASH}') || char(10) || (COALESCE(l.seq, 0) + 1) || char(10) || v.body)
      FROM (SELECT ? AS at, ? AS kind, ? AS actor_id, ? AS actor_name, ? AS session_id, ? AS detail_json, ? AS body) v
      -- The last entry by its primary key, one row read (a MAX beside another column would scan the table).
      LEFT JOIN (SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1) l ON true`,
  // Each filter's value twice: it is NULL (no filter) or compared.
  auditPage: `SELECT * FROM audit_log WHERE seq > ? AND (? IS NULL OR kind = ?) AND (? IS NULL OR actor_id = ?) AND (? IS NULL OR session_id = ?)
      AND (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?) ORDER BY seq LIMIT ?`,
  insertSessionFourEyes: 'INSERT INTO session_four_eyes (session_id) VALUES (?)',
  setSessionLabel: 'INSERT INTO session_labels (session_id, label) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET label = excluded.label',
  insertCallScheduler: 'INSERT INTO call_schedulers (session_id, call_id, scheduled_by) VALUES (?, ?, ?)',
  callScheduler: 'SELECT scheduled_by FROM call_schedulers WHERE session_id = ? AND call_id = ?',
  // Before the decision itself: only a request still pending gets its decider.
  decidePermissionBy: `INSERT INTO permission_deciders (permission_id, session_id, decider_id, decider_name)
      SELECT id, session_id, ?, ? FROM permission_requests WHERE id = ? AND status = 'pending' ON CONFLICT (permission_id) DO NOTHING`,
  closedPermissionSession: 'SELECT session_id FROM closed_permissions WHERE id = ?',
  closeSessionPermissions: 'INSERT INTO closed_permissions (id, session_id) SELECT id, session_id FROM permission_requests WHERE session_id = ? ON CONFLICT (id) DO NOTHING',
  deleteSessionFourEyes: 'DELETE FROM session_four_eyes WHERE session_id = ?',
  deleteSessionLabel: 'DELETE FROM session_labels WHERE session_id = ?',
  deleteSessionCallSchedulers: 'DELETE FROM call_schedulers WHERE session_id = ?',
  deleteSessionDeciders: 'DELETE FROM permission_deciders WHERE session_id = ?',
  deleteSessionCalls: 'DELETE FROM tool_calls WHERE session_id = ?',
  deleteSessionPermissions: 'DELETE FROM permission_requests WHERE session_id = ?',
  deleteSessionGrants: 'DELETE FROM session_grants WHERE session_id = ?',
  deleteSessionTodos: 'DELETE FROM todos WHERE session_id = ?',
  deleteSessionSandbox: 'DELETE FROM session_sandbox WHERE session_id = ?',
  deleteSessionArtifacts: 'DELETE FROM artifacts WHERE session_id = ?',
  deleteSessionEvents: 'DELETE FROM events WHERE session_id = ?',
  deleteSessionScheduleAborts: 'DELETE FROM schedule_aborts WHERE session_id = ?',
  deleteSessionBackgroundTasks: 'DELETE FROM background_tasks WHERE session_id = ?',
  deleteSessionSchedules: 'DELETE FROM schedules WHERE session_id = ?',
  deleteSessionRow: 'DELETE FROM sessions WHERE id = ?',
} as const

export type Statements = { readonly [K in keyof typeof SQL]: Database.Statement }

export function prepareStatements(db: Db): Statements {
  const prepared: Partial<Record<keyof typeof SQL, Database.Statement>> = {}
  for (const key of Object.keys(SQL) as (keyof typeof SQL)[]) prepared[key] = db.prepare(SQL[key])
  return prepared as Statements
}
