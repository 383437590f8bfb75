-- 012's fence locked each lease row FOR SHARE in every unit of work: a lock written into the row
-- (a page dirtied and logged per unit, a MultiXact when two units shared it), and one that made
-- each renewal (an UPDATE of the node's lease rows) wait for the units in flight and hold back
-- the ones after it, and each node that asked for a session another node held (an INSERT ON
-- CONFLICT DO UPDATE, which locks the row even when its WHERE refuses it) wait too: 1.6-2 ms of
-- PostgreSQL's time per call with two nodes. Now a unit holds a shared advisory lock per session
-- (one in memory, nothing written) and then checks the epoch; the one change of a lease that
-- the fence must see, its taking, holds the exclusive lock on the same key first. So a taking
-- still waits for a unit that passed the fence, and a unit after a taking still sees the new
-- owner (each statement of the function reads with a snapshot taken after its locks).

-- The lock's key of a session: 64 bits of its id's hash; two sessions that share one only wait
-- for each other's taking.
CREATE FUNCTION toolexec_lease_key(session TEXT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
  SELECT hashtextextended(session, 0)
$$;

CREATE OR REPLACE FUNCTION toolexec_fence(node TEXT, sessions TEXT[], epochs BIGINT[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  held INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(toolexec_lease_key(s)) FROM unnest(sessions) AS s;
  SELECT count(*) INTO held FROM session_leases l JOIN unnest(sessions, epochs) AS f(session_id, epoch)
    ON l.session_id = f.session_id AND l.owner = node AND l.epoch = f.epoch;
  IF held <> cardinality(sessions) THEN
    RAISE EXCEPTION 'the lease of a session this unit writes is no longer held by node %', node USING ERRCODE = 'TL001';
  END IF;
END
$$;

-- Takes the lease when it has none, when it has expired, or when it is this node's already
-- (the epoch goes up with every taking); NULL when another node holds it. The exclusive lock is
-- taken only for a lease that looks free, so that asking for a held one holds back no unit.
CREATE FUNCTION toolexec_take_lease(session TEXT, node TEXT, ttl_ms BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
  taken BIGINT;
BEGIN
  IF EXISTS (SELECT 1 FROM session_leases WHERE session_id = session AND owner <> node AND expires_at > now()) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(toolexec_lease_key(session));
  INSERT INTO session_leases AS l (session_id, owner, epoch, expires_at) VALUES (session, node, 1, now() + ttl_ms * interval '1 millisecond')
    ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at
    WHERE l.owner = EXCLUDED.owner OR l.expires_at <= now()
    RETURNING epoch INTO taken;
  RETURN taken;
END
$$;
