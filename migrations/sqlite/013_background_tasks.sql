-- Background tasks (Bash run_in_background) as records that outlive the process running them:
-- after a crash, or once another server took the session over, a task still recorded as
-- running is marked lost, and TaskOutput and TaskStop say so instead of not knowing its id.
CREATE TABLE IF NOT EXISTS background_tasks (
  session_id  TEXT NOT NULL,
  id          TEXT NOT NULL,
  call_id     TEXT NOT NULL,
  command     TEXT NOT NULL,
  description TEXT NOT NULL,
  node_id     TEXT NOT NULL,
  output_path TEXT,
  status      TEXT NOT NULL,
  exit_code   INTEGER,
  started_at  TEXT NOT NULL,
  ended_at    TEXT,
  PRIMARY KEY (session_id, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS background_tasks_running ON background_tasks(session_id) WHERE status = 'running';
