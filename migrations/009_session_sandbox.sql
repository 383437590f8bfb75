-- A session's own sandbox settings for Bash (JSON: readOnlyPaths, writablePaths, network), added
-- to the config file's; NULL when it has none.
ALTER TABLE sessions ADD COLUMN sandbox_json TEXT;
