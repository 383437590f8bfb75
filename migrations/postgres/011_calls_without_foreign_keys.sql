-- A call's row is written by its own session's units, after its schedule's, and deleted with
-- its session by the session's deletion: its two foreign keys checked nothing those do not.
-- Yet each insert locked the parent session's and schedule's rows (FOR KEY SHARE writes the
-- lock into each parent row: a page dirtied and logged per call), about a fifth of
-- PostgreSQL's CPU per call in `npm run bench:http` (469 -> 385 µs). The schedule keeps its
-- key to the session: one per schedule, not per call.
ALTER TABLE tool_calls DROP CONSTRAINT IF EXISTS tool_calls_session_id_fkey;
ALTER TABLE tool_calls DROP CONSTRAINT IF EXISTS tool_calls_schedule_id_fkey;
