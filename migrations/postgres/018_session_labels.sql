-- A session's label, the name a person gave it (PATCH /sessions/{id}), in a table of its own
-- (a migration must run twice by hand); no row when it has none.
CREATE TABLE IF NOT EXISTS session_labels (
  session_id TEXT COLLATE "C" PRIMARY KEY,
  label      TEXT NOT NULL
);
