-- Schedules the session's abort reached before they ended. Recovery ends their remaining calls
-- cancelled instead of running them, as the acknowledged abort said.
CREATE TABLE IF NOT EXISTS schedule_aborts (
  schedule_id TEXT PRIMARY KEY REFERENCES schedules(id),
  session_id  TEXT NOT NULL,
  aborted_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS schedule_aborts_by_session ON schedule_aborts(session_id);
