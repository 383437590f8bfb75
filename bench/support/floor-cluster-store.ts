/**
 * What a node of the floor cluster (floor-cluster-child.ts) keeps in PostgreSQL: the floor's
 * rows (floor-stores.ts) and the least coordination any cluster on one database needs: a node
 * row for its address, a lease row per session with its owner and epoch, each commit fenced
 * as migrations/postgres/014 fences ours (a shared advisory lock per session, then the epoch
 * checked) and notifying the other nodes of the (session, seq) it added, in the same single
 * statement; and, on the other nodes, the new rows of the sessions they stream read on a
 * wake-up, every session woken in one tick in one query.
 */
import pg from 'pg'
import { batchValues, COMMIT_WRITES, END_SCHEDULES, POSTGRES_SCHEMA, type FloorBatch, type FloorStore } from './floor-stores.js'

export const FLOOR_EVENTS_CHANNEL = 'floor_events'
/** A notification's payload is capped at 8,000 bytes: a longer list wakes every stream instead. */
export const WAKE_ALL = '*'
const MAX_PAYLOAD_BYTES = 7_900
/** Events read per session at most in one query; a stream sent a full page reads again. */
export const EVENTS_PAGE = 100

// The lease functions are those of migrations/postgres/014, on the floor's own table.
const CLUSTER_SCHEMA = `
CREATE TABLE floor_nodes (id TEXT COLLATE "C" PRIMARY KEY, url TEXT NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
CREATE TABLE floor_leases (session_id TEXT COLLATE "C" PRIMARY KEY, owner TEXT COLLATE "C" NOT NULL, epoch BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
CREATE INDEX floor_leases_by_owner ON floor_leases(owner);
CREATE FUNCTION floor_fence(node TEXT, sessions TEXT[], epochs BIGINT[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  held INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(s, 0)) FROM unnest(sessions) AS s;
  SELECT count(*) INTO held FROM floor_leases l JOIN unnest(sessions, epochs) AS f(session_id, epoch)
    ON l.session_id = f.session_id AND l.owner = node AND l.epoch = f.epoch;
  IF held <> cardinality(sessions) THEN
    RAISE EXCEPTION 'the lease of a session this commit writes is no longer held by node %', node USING ERRCODE = 'TL001';
  END IF;
END
$$;
CREATE FUNCTION floor_take_lease(session TEXT, node TEXT, ttl_ms BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
  taken BIGINT;
BEGIN
  IF EXISTS (SELECT 1 FROM floor_leases WHERE session_id = session AND owner <> node AND expires_at > now()) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(session, 0));
  INSERT INTO floor_leases AS l (session_id, owner, epoch, expires_at) VALUES (session, node, 1, now() + ttl_ms * interval '1 millisecond')
    ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at
    WHERE l.owner = EXCLUDED.owner OR l.expires_at <= now()
    RETURNING epoch INTO taken;
  RETURN taken;
END
$$;
`

// The fence is the primary query: it runs (and takes its locks) before the writes of the WITH
// parts are carried out, and any failure of it or of them commits nothing and notifies no one.
const FENCED_COMMIT = `${COMMIT_WRITES}, ended_schedules AS (${END_SCHEDULES})
SELECT floor_fence($18, $19::text[], $20::bigint[]), pg_notify('${FLOOR_EVENTS_CHANNEL}', $21)`

const SQL = {
  register: `INSERT INTO floor_nodes (id, url, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
    ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, expires_at = EXCLUDED.expires_at`,
  renew: `WITH node AS (UPDATE floor_nodes SET expires_at = now() + $2 * interval '1 millisecond' WHERE id = $1)
    UPDATE floor_leases SET expires_at = now() + $2 * interval '1 millisecond' WHERE owner = $1`,
  take: 'SELECT floor_take_lease($1, $2, $3) AS epoch',
  owner: 'SELECT n.url FROM floor_leases l JOIN floor_nodes n ON n.id = l.owner WHERE l.session_id = $1 AND l.expires_at > now() AND n.expires_at > now()',
  // Each session's rows by its index (a join would scan the whole table: unnest's rows are too few to plan for).
  eventsAfter: `SELECT r.session_id, e.seq, e.type, e.data FROM unnest($1::text[], $2::bigint[]) AS r(session_id, after)
    CROSS JOIN LATERAL (SELECT seq, type, data FROM events WHERE session_id = r.session_id AND seq > r.after ORDER BY seq LIMIT ${EVENTS_PAGE}) AS e ORDER BY r.session_id, e.seq`,
} as const

export interface StoredFloorEvent {
  readonly sessionId: string
  readonly seq: number
  readonly type: string
  readonly data: string
}

export interface FloorClusterStore extends FloorStore {
  /** Registers the node as reachable at `url` and keeps its row and leases renewed. */
  register(url: string): Promise<void>
  /** The session's lease for this node, its epoch; undefined when another live node holds it. */
  takeLease(sessionId: string): Promise<number | undefined>
  /** The address of the live node holding the session's lease. */
  ownerUrl(sessionId: string): Promise<string | undefined>
  /** The events after each session's seq, read in one query. */
  eventsAfter(after: ReadonlyMap<string, number>): Promise<StoredFloorEvent[]>
  /** Listens for other nodes' commits; `onWake` gets each notification's payload. */
  listen(onWake: (payload: string) => void): Promise<void>
}

export interface FloorNode {
  readonly id: string
  readonly leaseMs: number
}

type Query = <R extends pg.QueryResultRow>(query: string | pg.QueryConfig, values?: unknown[]) => Promise<pg.QueryResult<R>>

interface Connection {
  readonly client: pg.Client
  /** Queries sent one after another, each once the last one answered. */
  readonly query: Query
}

async function connect(url: string): Promise<Connection> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let last: Promise<unknown> = Promise.resolve()
  const query: Query = <R extends pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]) => {
    const next = last.then(() => client.query<R>(text as pg.QueryConfig, values))
    last = next.catch(() => undefined)
    return next
  }
  return { client, query }
}

/**
 * Three connections, as the roles need: commits and leases taken on one, so that group commits
 * follow each other; reads of other nodes' events on another, so that they never wait behind a
 * commit; and the one that listens, which also renews the node's row and leases and finds
 * owners (both rare).
 */
export async function postgresFloorClusterStore(url: string, node: FloorNode): Promise<FloorClusterStore> {
  const [writer, reader, listener] = await Promise.all([connect(url), connect(url), connect(url)])
  await createSchemaOnce(writer.client)
  const epochs = new Map<string, number>()
  let renewal: NodeJS.Timeout | undefined
  const count = async (sql: string): Promise<number> => Number((await writer.query<{ n: string }>(sql)).rows[0]?.n)
  return {
    async register(url) {
      await listener.query(SQL.register, [node.id, url, node.leaseMs])
      // Renewed a third of the lease time apart, as ours renews its leases and heartbeat.
      renewal = setInterval(() => void listener.query(SQL.renew, [node.id, node.leaseMs]).catch(() => undefined), Math.floor(node.leaseMs / 3))
    },
    async commit(batch) {
      const sessions = [...new Set([...batch.accepted, ...batch.ended].map((call) => call.sessionId))]
      await writer.query({ name: 'floor_fenced_commit', text: FENCED_COMMIT, values: [...batchValues(batch), node.id, sessions, sessions.map((id) => epochs.get(id)), wakeUpPayload(batch)] })
    },
    async takeLease(sessionId) {
      const epoch = (await writer.query<{ epoch: string | null }>({ name: 'floor_take', text: SQL.take, values: [sessionId, node.id, node.leaseMs] })).rows[0]?.epoch
      if (epoch === null || epoch === undefined) return undefined
      epochs.set(sessionId, Number(epoch))
      return Number(epoch)
    },
    async ownerUrl(sessionId) {
      return (await listener.query<{ url: string }>({ name: 'floor_owner', text: SQL.owner, values: [sessionId] })).rows[0]?.url
    },
    async eventsAfter(after) {
      const result = await reader.query<{ session_id: string; seq: string; type: string; data: string }>({
        name: 'floor_events_after',
        text: SQL.eventsAfter,
        values: [[...after.keys()], [...after.values()]],
      })
      return result.rows.map((row) => ({ sessionId: row.session_id, seq: Number(row.seq), type: row.type, data: row.data }))
    },
    async listen(onWake) {
      listener.client.on('notification', (message) => onWake(message.payload ?? WAKE_ALL))
      await listener.query(`LISTEN ${FLOOR_EVENTS_CHANNEL}`)
    },
    async report() {
      clearInterval(renewal)
      const succeeded = await count("SELECT count(*) AS n FROM tool_calls WHERE status = 'succeeded'")
      const events = await count('SELECT count(*) AS n FROM events')
      await Promise.all([writer.client.end(), reader.client.end(), listener.client.end()])
      return { succeededCalls: succeeded, tool_calls: succeeded, events }
    },
  }
}

/** The nodes start one after another: the first makes the tables. */
async function createSchemaOnce(client: pg.Client): Promise<void> {
  const made = (await client.query<{ made: boolean }>("SELECT to_regclass('floor_leases') IS NOT NULL AS made")).rows[0]?.made
  if (made !== true) await client.query(`BEGIN; ${POSTGRES_SCHEMA} ${CLUSTER_SCHEMA} COMMIT`)
}

/** Each session of the commit with the highest seq it adds, as JSON: [[session, seq], ...]. */
function wakeUpPayload({ accepted, ended }: FloorBatch): string {
  const highest = new Map<string, number>()
  for (const call of [...accepted, ...ended]) for (const event of call.events) highest.set(call.sessionId, Math.max(highest.get(call.sessionId) ?? 0, event.seq))
  const payload = JSON.stringify([...highest])
  return Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES ? WAKE_ALL : payload
}
