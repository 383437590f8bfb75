-- Background tasks (Bash run_in_background) as records that outlive the process running them:
-- once another node took the session over (or the node restarted), a task still recorded as
-- running is marked lost, and TaskOutput and TaskStop say so instead of not knowing its id.
-- Written by the session's owner in its fenced units, like every other row of a session.
CREATE TABLE background_tasks (
  session_id  TEXT COLLATE "C" NOT NULL,
  id          TEXT COLLATE "C" NOT NULL,
  call_id     TEXT COLLATE "C" NOT NULL,
  command     TEXT NOT NULL,
  description TEXT NOT NULL,
  node_id     TEXT COLLATE "C" NOT NULL,
  output_path TEXT,
  status      TEXT NOT NULL,
  exit_code   INTEGER,
  started_at  TEXT COLLATE "C" NOT NULL,
  ended_at    TEXT,
  PRIMARY KEY (session_id, id)
);
CREATE INDEX background_tasks_running ON background_tasks(session_id) WHERE status = 'running';
