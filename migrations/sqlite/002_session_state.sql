-- Per-session tool state: the todo list of TodoWrite.
CREATE TABLE IF NOT EXISTS todos (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id),
  todos_json TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
