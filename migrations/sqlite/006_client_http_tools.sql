-- HTTP tools a client added with POST /tools: registered again at every start, so a restart
-- (or a crash with one of their calls awaiting approval) does not forget them.
CREATE TABLE IF NOT EXISTS client_http_tools (
  name            TEXT PRIMARY KEY,
  definition_json TEXT NOT NULL,
  created_at      TEXT NOT NULL
);
