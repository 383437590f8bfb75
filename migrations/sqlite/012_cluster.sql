-- PostgreSQL's 012 adds the tables of several servers on one database (nodes and session
-- leases). The embedded database is one server's, which owns every session: nothing changes
-- here; the version is shared so that one number names one logical schema on both backends.
SELECT 1;
