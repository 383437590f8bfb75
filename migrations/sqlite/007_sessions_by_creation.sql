-- GET /sessions lists the newest first, a page at a time.
CREATE INDEX IF NOT EXISTS sessions_by_creation ON sessions(created_at, id);
