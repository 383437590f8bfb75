-- toolexec schema v10 on PostgreSQL: the tables, keys and indexes SQLite has after its
-- migrations 001..010, created at once (PostgreSQL support starts at version 10). Texts sort
-- by their bytes (COLLATE "C"), as SQLite's do; JSON stays TEXT, so that what is stored is
-- replayed byte for byte.
CREATE TABLE sessions (
  id                    TEXT COLLATE "C" PRIMARY KEY,
  workspace             TEXT COLLATE "C" NOT NULL,
  permission_mode       TEXT NOT NULL,
  interactive           INTEGER NOT NULL,
  permission_timeout_ms BIGINT,
  created_at            TEXT COLLATE "C" NOT NULL
);
CREATE INDEX sessions_by_creation ON sessions(created_at, id);

CREATE TABLE session_sandbox (
  session_id    TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id),
  settings_json TEXT NOT NULL
);

CREATE TABLE schedules (
  id           TEXT COLLATE "C" PRIMARY KEY,
  session_id   TEXT COLLATE "C" NOT NULL REFERENCES sessions(id),
  turn_id      TEXT NOT NULL,
  arrival      BIGINT NOT NULL,
  status       TEXT NOT NULL,
  groups_json  TEXT NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL,
  completed_at TEXT COLLATE "C"
);
CREATE INDEX schedules_by_session ON schedules(session_id, arrival);
CREATE INDEX schedules_unfinished_by_session ON schedules(session_id, arrival) WHERE completed_at IS NULL;

CREATE TABLE schedule_aborts (
  schedule_id TEXT COLLATE "C" PRIMARY KEY REFERENCES schedules(id),
  session_id  TEXT COLLATE "C" NOT NULL,
  aborted_at  TEXT NOT NULL
);
CREATE INDEX schedule_aborts_by_session ON schedule_aborts(session_id);

CREATE TABLE tool_calls (
  session_id          TEXT COLLATE "C" NOT NULL REFERENCES sessions(id),
  id                  TEXT COLLATE "C" NOT NULL,
  schedule_id         TEXT COLLATE "C" NOT NULL REFERENCES schedules(id),
  position            BIGINT NOT NULL,
  name                TEXT NOT NULL,
  input_json          TEXT NOT NULL,
  depends_on_json     TEXT,
  resolved_input_json TEXT,
  flags_json          TEXT,
  status              TEXT NOT NULL,
  started_at          TEXT,
  completed_at        TEXT,
  result_json         TEXT,
  PRIMARY KEY (session_id, id)
);
CREATE INDEX tool_calls_by_schedule ON tool_calls(schedule_id, position);

CREATE TABLE permission_requests (
  id             TEXT COLLATE "C" PRIMARY KEY,
  session_id     TEXT COLLATE "C" NOT NULL REFERENCES sessions(id),
  call_id        TEXT COLLATE "C" NOT NULL,
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
  created_at     TEXT COLLATE "C" NOT NULL,
  decided_at     TEXT
);
CREATE INDEX permission_requests_pending ON permission_requests(status, session_id);
CREATE INDEX permission_requests_by_call ON permission_requests(session_id, call_id);

CREATE TABLE session_grants (
  session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id),
  tool_name  TEXT COLLATE "C" NOT NULL,
  rule_key   TEXT COLLATE "C" NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, tool_name, rule_key)
);

CREATE TABLE artifacts (
  id         TEXT COLLATE "C" PRIMARY KEY,
  session_id TEXT COLLATE "C" NOT NULL,
  call_id    TEXT COLLATE "C" NOT NULL,
  path       TEXT NOT NULL,
  uri        TEXT NOT NULL,
  bytes      BIGINT NOT NULL,
  media_type TEXT NOT NULL,
  retention  TEXT NOT NULL,
  sha256     TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX artifacts_by_session ON artifacts(session_id);

-- Appended in commit order; the session's sequence is behind a unique index.
CREATE TABLE events (
  id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id TEXT COLLATE "C" NOT NULL,
  seq        BIGINT NOT NULL,
  type       TEXT NOT NULL,
  at         TEXT NOT NULL,
  data       TEXT NOT NULL
);
CREATE UNIQUE INDEX events_by_session ON events(session_id, seq);

CREATE TABLE todos (
  session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id),
  todos_json TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE project_rules (
  id         TEXT COLLATE "C" PRIMARY KEY,
  workspace  TEXT COLLATE "C" NOT NULL,
  rule       TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  UNIQUE (workspace, rule)
);

CREATE TABLE client_http_tools (
  name            TEXT COLLATE "C" PRIMARY KEY,
  definition_json TEXT NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL
);
