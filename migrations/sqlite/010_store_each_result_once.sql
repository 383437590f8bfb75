-- Each result stored once per place it is read: tool_calls.result_json (history, call records,
-- recovery) and the ToolCallResult event (the stream). The six part columns beside result_json
-- (output, model content, display, serialization, error, perf) were written by every call and
-- read by nothing: the table is rebuilt without them, each row keeping its rowid.
-- Safe to run twice: the second run copies the table once more.
CREATE TABLE IF NOT EXISTS tool_calls_stored_once (
  session_id          TEXT NOT NULL REFERENCES sessions(id),
  id                  TEXT NOT NULL,
  schedule_id         TEXT NOT NULL REFERENCES schedules(id),
  position            INTEGER NOT NULL,
  name                TEXT NOT NULL,
  input_json          TEXT NOT NULL,
  depends_on_json     TEXT,
  resolved_input_json TEXT,
  flags_json          TEXT,
  status              TEXT NOT NULL,
  started_at          TEXT,
  completed_at        TEXT,
  result_json         TEXT,
  PRIMARY KEY (session_id, id)
);
INSERT INTO tool_calls_stored_once (rowid, session_id, id, schedule_id, position, name, input_json, depends_on_json, resolved_input_json,
    flags_json, status, started_at, completed_at, result_json)
  SELECT rowid, session_id, id, schedule_id, position, name, input_json, depends_on_json, resolved_input_json,
    flags_json, status, started_at, completed_at, result_json FROM tool_calls ORDER BY rowid;
DROP TABLE tool_calls;
ALTER TABLE tool_calls_stored_once RENAME TO tool_calls;
CREATE INDEX IF NOT EXISTS tool_calls_by_schedule ON tool_calls(schedule_id, position);

