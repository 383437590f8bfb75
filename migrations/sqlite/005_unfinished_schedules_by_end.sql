-- Unfinished schedules found by their missing end time instead of their status: a schedule's
-- row then enters this index once (accepted) and leaves it once (ended), where the status
-- index moved it on every change, a page rewritten in the WAL each time.
DROP INDEX IF EXISTS schedules_unfinished;
CREATE INDEX IF NOT EXISTS schedules_unfinished_by_session ON schedules(session_id, arrival) WHERE completed_at IS NULL;
