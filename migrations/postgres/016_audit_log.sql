-- The audit log: who decided an approval, minted or revoked a key, removed a rule or a tool,
-- deleted a session. Append-only and chained: each entry holds the hash of the one before,
-- hash = sha256(prev_hash || '\n' || seq || '\n' || body) in hex, where body is the entry's
-- canonical JSON (src/storage/audit-chain.ts); the first entry's prev_hash is 64 zeros.
-- No foreign key: an entry outlives the session it names.
CREATE TABLE IF NOT EXISTS audit_log (
  seq         BIGINT PRIMARY KEY,
  at          TEXT COLLATE "C" NOT NULL,
  kind        TEXT COLLATE "C" NOT NULL,
  actor_id    TEXT COLLATE "C" NOT NULL,
  actor_name  TEXT NOT NULL,
  session_id  TEXT COLLATE "C",
  detail_json TEXT NOT NULL,
  prev_hash   TEXT COLLATE "C" NOT NULL,
  hash        TEXT COLLATE "C" NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_log_by_session ON audit_log(session_id, seq);
CREATE INDEX IF NOT EXISTS audit_log_by_actor ON audit_log(actor_id, seq);
CREATE INDEX IF NOT EXISTS audit_log_by_kind ON audit_log(kind, seq);

-- Several servers append: each unit that appends takes this transaction-level lock first, so
-- that entries are chained one after another. Each statement of the function reads with a
-- snapshot taken after the lock, so it links to the entry the unit before committed.
CREATE OR REPLACE FUNCTION toolexec_audit_append(at TEXT, kind TEXT, actor_id TEXT, actor_name TEXT, session_id TEXT, detail TEXT, body TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  last_seq BIGINT;
  last_hash TEXT;
BEGIN
  -- The key spells toolaudt.
  PERFORM pg_advisory_xact_lock(8390047142096757876);
  SELECT a.seq, a.hash INTO last_seq, last_hash FROM audit_log a ORDER BY a.seq DESC LIMIT 1;
  IF NOT FOUND THEN
    last_seq := 0;
    last_hash := repeat('0', 64);
  END IF;
  INSERT INTO audit_log (seq, at, kind, actor_id, actor_name, session_id, detail_json, prev_hash, hash)
  VALUES (last_seq + 1, at, kind, actor_id, actor_name, session_id, detail, last_hash,
    encode(sha256(convert_to(last_hash || E'\n' || (last_seq + 1)::text || E'\n' || body, 'UTF8')), 'hex'));
END
$$;

-- Rewriting the log takes dropping this first; the chain tells it then (toolexec audit verify).
CREATE OR REPLACE FUNCTION toolexec_audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only';
END
$$;
DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION toolexec_audit_refuse();
DROP TRIGGER IF EXISTS audit_log_no_truncate ON audit_log;
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION toolexec_audit_refuse();
