-- PostgreSQL's 014 fences units by advisory locks instead of row locks on the session leases.
-- The embedded database is one server's, which owns every session: nothing changes here; the
-- version is shared so that one number names one logical schema on both backends.
SELECT 1;
