-- Several servers on one database. Each node registers itself and renews its heartbeat; each
-- session is run by the node holding its lease, whose epoch goes up whenever the owner changes.
-- Times are the database's clock, so that the nodes' clocks need not agree.
CREATE TABLE cluster_nodes (
  id         TEXT COLLATE "C" PRIMARY KEY,
  url        TEXT NOT NULL,
  started_at TIMESTAMPTZ NOT NULL,
  seen_at    TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE session_leases (
  session_id TEXT COLLATE "C" PRIMARY KEY,
  owner      TEXT COLLATE "C" NOT NULL,
  epoch      BIGINT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX session_leases_by_owner ON session_leases(owner);

-- The fence every unit of work of an owner begins with: it fails the unit (SQLSTATE TL001) unless
-- the node still holds each session's lease at the epoch it took. The rows are locked (FOR SHARE)
-- until the unit commits, so a takeover waits for a unit that passed, and a unit after a takeover
-- sees the new owner: a node paused past its lease writes nothing once another has taken over.
CREATE FUNCTION toolexec_fence(node TEXT, sessions TEXT[], epochs BIGINT[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  held INTEGER;
BEGIN
  SELECT count(*) INTO held FROM (
    SELECT 1 FROM session_leases l JOIN unnest(sessions, epochs) AS f(session_id, epoch)
      ON l.session_id = f.session_id AND l.owner = node AND l.epoch = f.epoch
    FOR SHARE OF l
  ) AS still_held;
  IF held <> cardinality(sessions) THEN
    RAISE EXCEPTION 'the lease of a session this unit writes is no longer held by node %', node USING ERRCODE = 'TL001';
  END IF;
END
$$;
