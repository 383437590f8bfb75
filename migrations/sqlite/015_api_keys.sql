-- API keys (POST /keys): the secret is kept only as its SHA-256, which a request's bearer is
-- looked up by; a revoked key keeps its row, with the time it was revoked.
CREATE TABLE IF NOT EXISTS api_keys (
  id              TEXT PRIMARY KEY,
  name            TEXT NOT NULL,
  secret_hash     TEXT NOT NULL UNIQUE,
  role            TEXT,
  scopes_json     TEXT NOT NULL,
  sessions_json   TEXT,
  workspaces_json TEXT,
  expires_at      TEXT,
  created_at      TEXT NOT NULL,
  created_by      TEXT NOT NULL,
  revoked_at      TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_by_creation ON api_keys(created_at, id);
