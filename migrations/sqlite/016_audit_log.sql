-- The audit log: who decided an approval, minted or revoked a key, removed a rule or a tool,
-- deleted a session. Append-only and chained: each entry holds the hash of the one before,
-- hash = sha256(prev_hash || '\n' || seq || '\n' || body) in hex, where body is the entry's
-- canonical JSON (src/storage/audit-chain.ts); the first entry's prev_hash is 64 zeros.
-- No foreign key: an entry outlives the session it names.
CREATE TABLE IF NOT EXISTS audit_log (
  seq         INTEGER PRIMARY KEY,
  at          TEXT NOT NULL,
  kind        TEXT NOT NULL,
  actor_id    TEXT NOT NULL,
  actor_name  TEXT NOT NULL,
  session_id  TEXT,
  detail_json TEXT NOT NULL,
  prev_hash   TEXT NOT NULL,
  hash        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_log_by_session ON audit_log(session_id, seq);
CREATE INDEX IF NOT EXISTS audit_log_by_actor ON audit_log(actor_id, seq);
CREATE INDEX IF NOT EXISTS audit_log_by_kind ON audit_log(kind, seq);
-- Rewriting the log takes dropping these first; the chain tells it then (toolexec audit verify).
CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
