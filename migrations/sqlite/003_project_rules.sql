-- Allow rules granted for a workspace by an approval with scope "project".
CREATE TABLE IF NOT EXISTS project_rules (
  id         TEXT PRIMARY KEY,
  workspace  TEXT NOT NULL,
  rule       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (workspace, rule)
);
