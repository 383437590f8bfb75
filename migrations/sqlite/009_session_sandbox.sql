-- A session's own sandbox settings for Bash (JSON: readOnlyPaths, writablePaths, network), added
-- to the config file's; no row when it has none.
CREATE TABLE IF NOT EXISTS session_sandbox (
  session_id    TEXT PRIMARY KEY REFERENCES sessions(id),
  settings_json TEXT NOT NULL
);
