-- Approvals bound to who asks and who answers, in tables of their own (a migration must run
-- twice by hand): the sessions under four eyes, the principal (a key's id, `admin` or
-- `local`) that scheduled each call, and the one that decided each request through the API.
CREATE TABLE IF NOT EXISTS session_four_eyes (
  session_id TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS call_schedulers (
  session_id   TEXT NOT NULL,
  call_id      TEXT NOT NULL,
  scheduled_by TEXT NOT NULL,
  PRIMARY KEY (session_id, call_id)
);
CREATE TABLE IF NOT EXISTS permission_deciders (
  permission_id TEXT PRIMARY KEY,
  session_id    TEXT NOT NULL,
  decider_id    TEXT NOT NULL,
  decider_name  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS permission_deciders_by_session ON permission_deciders(session_id);
-- What is left of a deleted session's permission requests: their ids and session, nothing of
-- what they showed, so that a late decision on one is told it closed (409), not that it never was.
CREATE TABLE IF NOT EXISTS closed_permissions (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL
);
