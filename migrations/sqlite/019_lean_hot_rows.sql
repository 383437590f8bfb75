-- PostgreSQL's 019 keys events by (session, seq) and leaves room in the pages of calls and
-- schedules for their updates. The embedded database's tables are laid out by SQLite, which
-- has neither: nothing changes here; the version is shared so that one number names one
-- logical schema on both backends.
SELECT 1;
