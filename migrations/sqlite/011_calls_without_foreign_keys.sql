-- PostgreSQL's 011 drops the foreign keys of tool_calls, which cost it a lock written into the
-- parent rows per call. SQLite checks them by an index lookup that writes nothing, and
-- dropping them would rebuild the table: it keeps them. Nothing changes here; the version is
-- shared so that one number names one logical schema on both backends.
SELECT 1;
