-- API keys (POST /keys): the secret is kept only as its SHA-256, which a request's bearer is
-- looked up by; a revoked key keeps its row, with the time it was revoked.
CREATE TABLE IF NOT EXISTS api_keys (
  id              TEXT COLLATE "C" PRIMARY KEY,
  name            TEXT NOT NULL,
  secret_hash     TEXT COLLATE "C" NOT NULL UNIQUE,
  role            TEXT,
  scopes_json     TEXT NOT NULL,
  sessions_json   TEXT,
  workspaces_json TEXT,
  expires_at      TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL,
  created_by      TEXT COLLATE "C" NOT NULL,
  revoked_at      TEXT COLLATE "C"
);
CREATE INDEX IF NOT EXISTS api_keys_by_creation ON api_keys(created_at, id);
