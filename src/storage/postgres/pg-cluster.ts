/**
 * @module The cluster's rows in PostgreSQL (migrations/postgres/012_cluster.sql): nodes with
 * their heartbeats, session leases with their epochs, and wake-ups by LISTEN/NOTIFY on a
 * connection of their own. A wake-up carries only the session's id: readers fetch the rows,
 * since a notification is lost with a dropped connection.
 */
import type { ClusterNode, ClusterStore, ClusterWakeUps, NodeIdentity, SessionLease } from '../../contracts/cluster.js'
import type { RawRow } from '../rows.js'
import type { PgSender } from './pg-connection.js'
import { WakeUpListener } from './wake-up-listener.js'

/** The channel a unit with events notifies, its payload a JSON list of [session id, highest seq added] (a plain id from a server before 014). */
export const EVENTS_CHANNEL = 'toolexec_events'
/** The channel a unit that deletes sessions notifies, its payload a JSON list of their ids. */
export const DELETED_CHANNEL = 'toolexec_deleted'
/**
 * The channel a unit that changes cached rows (sessions, project rules, HTTP tools) notifies:
 * every server reads them again; the payload is TOOLS_CHANGED when HTTP tools changed.
 */
export const CACHES_CHANNEL = 'toolexec_caches'
export const TOOLS_CHANGED = 'tools'

const expiry = (ttl: string): string => `now() + ${ttl} * interval '1 millisecond'`

const SQL = {
  heartbeat: `INSERT INTO cluster_nodes (id, url, started_at, seen_at, expires_at) VALUES ($1, $2, now(), now(), ${expiry('$3')})
    ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, seen_at = now(), expires_at = EXCLUDED.expires_at`,
  leaveNode: 'DELETE FROM cluster_nodes WHERE id = $1',
  endLeases: 'UPDATE session_leases SET expires_at = now() WHERE owner = $1',
  nodes: `SELECT id, url, to_json(started_at) #>> '{}' AS started_at, to_json(seen_at) #>> '{}' AS seen_at, expires_at > now() AS live
    FROM cluster_nodes ORDER BY id`,
  // With its owner's row, in one round trip: a request passed on needs both.
  lease: `SELECT l.owner, l.epoch, l.expires_at > now() AS current,
      n.id, n.url, to_json(n.started_at) #>> '{}' AS started_at, to_json(n.seen_at) #>> '{}' AS seen_at, n.expires_at > now() AS live
    FROM session_leases l LEFT JOIN cluster_nodes n ON n.id = l.owner WHERE l.session_id = $1`,
  // migrations/postgres/014: the epoch goes up with every taking, by another node or by this one after a restart.
  acquire: 'SELECT toolexec_take_lease($1, $2, $3) AS epoch',
  renew: `UPDATE session_leases SET expires_at = ${expiry('$2')} WHERE owner = $1 RETURNING session_id, epoch`,
  release: 'DELETE FROM session_leases WHERE owner = $1 AND session_id = ANY($2::text[])',
  // A session with a background task still recorded as running is adopted too: its new owner records the task lost.
  orphans: `SELECT w.session_id FROM (
      SELECT session_id FROM schedules WHERE completed_at IS NULL
      UNION SELECT session_id FROM background_tasks WHERE status = 'running'
    ) w LEFT JOIN session_leases l ON l.session_id = w.session_id
    WHERE l.session_id IS NULL OR l.expires_at <= now() OR l.owner = $1 LIMIT $2`,
} as const

export class PgCluster implements ClusterStore {
  readonly solo = false
  readonly #sender: PgSender
  readonly #url: string
  readonly #onCachesChanged: () => void

  /** `onCachesChanged` drops this server's cached rows: another server changed them. */
  constructor(sender: PgSender, url: string, onCachesChanged: () => void) {
    this.#sender = sender
    this.#url = url
    this.#onCachesChanged = onCachesChanged
  }

  async heartbeat(node: NodeIdentity, ttlMs: number): Promise<void> {
    await this.#sender.rows({ text: SQL.heartbeat, values: [node.id, node.url, ttlMs] })
  }

  leave(nodeId: string): Promise<void> {
    return this.#sender.commit([
      { text: SQL.leaveNode, values: [nodeId] },
      { text: SQL.endLeases, values: [nodeId] },
    ])
  }

  async nodes(): Promise<ClusterNode[]> {
    const rows = await this.#sender.rows({ text: SQL.nodes })
    return rows.map(toNode)
  }

  async lease(sessionId: string): Promise<SessionLease | undefined> {
    const [row] = await this.#sender.rows({ name: 'clusterLease', text: SQL.lease, values: [sessionId] })
    if (row === undefined) return undefined
    return { sessionId, owner: String(row.owner), epoch: Number(row.epoch), current: row.current === true, node: row.id === null ? undefined : toNode(row) }
  }

  async acquire(sessionId: string, nodeId: string, ttlMs: number): Promise<number | undefined> {
    const [row] = await this.#sender.rows({ name: 'clusterAcquire', text: SQL.acquire, values: [sessionId, nodeId, ttlMs] })
    return row === undefined || row.epoch === null ? undefined : Number(row.epoch)
  }

  async renew(nodeId: string, ttlMs: number): Promise<Map<string, number>> {
    const rows: RawRow[] = await this.#sender.rows({ text: SQL.renew, values: [nodeId, ttlMs] })
    return new Map(rows.map((row) => [String(row.session_id), Number(row.epoch)]))
  }

  async release(nodeId: string, sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length > 0) await this.#sender.rows({ text: SQL.release, values: [nodeId, [...sessionIds]] })
  }

  async orphans(nodeId: string, limit: number): Promise<string[]> {
    return (await this.#sender.rows({ text: SQL.orphans, values: [nodeId, limit] })).map((row) => String(row.session_id))
  }

  async listen(wakeUps: ClusterWakeUps): Promise<() => Promise<void>> {
    const reconnected = (): void => {
      this.#onCachesChanged()
      wakeUps.reconnected()
    }
    const events = (payload: string): void => {
      for (const entry of JSON.parse(payload) as (string | [string, number])[]) {
        if (typeof entry === 'string') wakeUps.events(entry)
        else wakeUps.events(entry[0], entry[1])
      }
    }
    const deleted = (payload: string): void => {
      for (const sessionId of JSON.parse(payload) as string[]) wakeUps.deleted(sessionId)
    }
    const cachesChanged = (payload: string): void => {
      this.#onCachesChanged()
      if (payload === TOOLS_CHANGED) wakeUps.toolsChanged()
    }
    const channels = { [EVENTS_CHANNEL]: events, [DELETED_CHANNEL]: deleted, [CACHES_CHANNEL]: cachesChanged }
    const listener = new WakeUpListener(this.#url, channels, reconnected)
    await listener.start()
    return () => listener.stop()
  }
}

function toNode(row: RawRow): ClusterNode {
  return { id: String(row.id), url: String(row.url), startedAt: String(row.started_at), seenAt: String(row.seen_at), live: row.live === true }
}
