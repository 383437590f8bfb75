-- Events stored in commit order, with the session's sequence behind a unique index. Keyed
-- by (session_id, seq) the rows of concurrent sessions land on as many pages as there are
-- sessions, and every commit rewrote each of those pages in the WAL; appended by rowid they
-- share the last page. Safe to run twice: the second run copies the table once more.
CREATE TABLE IF NOT EXISTS events_in_commit_order (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  type       TEXT NOT NULL,
  at         TEXT NOT NULL,
  data       TEXT NOT NULL
);
INSERT INTO events_in_commit_order (session_id, seq, type, at, data)
  SELECT session_id, seq, type, at, data FROM events ORDER BY at, session_id, seq;
DROP TABLE events;
ALTER TABLE events_in_commit_order RENAME TO events;
CREATE UNIQUE INDEX IF NOT EXISTS events_by_session ON events(session_id, seq);
