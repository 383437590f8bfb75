-- toolexec schema v1. Every statement is safe to run twice.
CREATE TABLE IF NOT EXISTS sessions (
  id                    TEXT PRIMARY KEY,
  workspace             TEXT NOT NULL,
  permission_mode       TEXT NOT NULL,
  interactive           INTEGER NOT NULL,
  permission_timeout_ms INTEGER,
  created_at            TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS schedules (
  id           TEXT PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  turn_id      TEXT NOT NULL,
  arrival      INTEGER NOT NULL,
  status       TEXT NOT NULL,
  groups_json  TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX IF NOT EXISTS schedules_by_session ON schedules(session_id, arrival);
CREATE INDEX IF NOT EXISTS schedules_unfinished ON schedules(status) WHERE status IN ('open', 'queued', 'running');

CREATE TABLE IF NOT EXISTS tool_calls (
  session_id          TEXT NOT NULL REFERENCES sessions(id),
  id                  TEXT NOT NULL,
  schedule_id         TEXT NOT NULL REFERENCES schedules(id),
  position            INTEGER NOT NULL,
  name                TEXT NOT NULL,
  input_json          TEXT NOT NULL,
  depends_on_json     TEXT,
  resolved_input_json TEXT,
  flags_json          TEXT,
  status              TEXT NOT NULL,
  started_at          TEXT,
  completed_at        TEXT,
  output_json         TEXT,
  model_content_json  TEXT,
  display_json        TEXT,
  serialization_json  TEXT,
  error_json          TEXT,
  perf_json           TEXT,
  result_json         TEXT,
  PRIMARY KEY (session_id, id)
);
CREATE INDEX IF NOT EXISTS tool_calls_by_schedule ON tool_calls(schedule_id, position);

CREATE TABLE IF NOT EXISTS permission_requests (
  id             TEXT PRIMARY KEY,
  session_id     TEXT NOT NULL REFERENCES sessions(id),
  call_id        TEXT NOT NULL,
  tool_name      TEXT NOT NULL,
  input_json     TEXT NOT NULL,
  preview_json   TEXT,
  risk_level     TEXT NOT NULL,
  reason         TEXT NOT NULL,
  suggested_rule TEXT,
  status         TEXT NOT NULL,
  decided_by     TEXT,
  message        TEXT,
  scope          TEXT,
  created_at     TEXT NOT NULL,
  decided_at     TEXT
);
CREATE INDEX IF NOT EXISTS permission_requests_pending ON permission_requests(status, session_id);
CREATE INDEX IF NOT EXISTS permission_requests_by_call ON permission_requests(session_id, call_id);

CREATE TABLE IF NOT EXISTS session_grants (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  tool_name  TEXT NOT NULL,
  rule_key   TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, tool_name, rule_key)
);

CREATE TABLE IF NOT EXISTS artifacts (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  call_id    TEXT NOT NULL,
  path       TEXT NOT NULL,
  uri        TEXT NOT NULL,
  bytes      INTEGER NOT NULL,
  media_type TEXT NOT NULL,
  retention  TEXT NOT NULL,
  sha256     TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS artifacts_by_session ON artifacts(session_id);

CREATE TABLE IF NOT EXISTS events (
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  type       TEXT NOT NULL,
  at         TEXT NOT NULL,
  data       TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
