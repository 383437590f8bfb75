/**
 * @module The port of the servers sharing one database: who is up (nodes and their heartbeats),
 * who runs which session (leases with an epoch), and wake-ups when any node commits a
 * session's events. Times are the database's own clock, so that nodes' clocks need not agree.
 * The embedded backend has one server per data directory: it is a cluster of one that owns
 * every session (`solo`).
 */

export interface ClusterNode {
  readonly id: string
  /** Where the node answers HTTP, for requests another node passes on to it. */
  readonly url: string
  readonly startedAt: string
  readonly seenAt: string
  /** Its last heartbeat is within the lease time. */
  readonly live: boolean
}

export interface SessionLease {
  readonly sessionId: string
  readonly owner: string
  readonly epoch: number
  /** Whether its expiry is still ahead, by the database's clock. */
  readonly current: boolean
  /** The owner's row, for passing requests on to it; undefined once the owner left. */
  readonly node: ClusterNode | undefined
}

/** This node as it registers itself. */
export interface NodeIdentity {
  readonly id: string
  readonly url: string
}

export interface ClusterStore {
  /** True for a database only one server uses: it owns every session, and nothing here is stored. */
  readonly solo: boolean
  /** Registers the node or renews its heartbeat. */
  heartbeat(node: NodeIdentity, ttlMs: number): Promise<void>
  /** Removes the node's row and ends its leases at once, so that others adopt its sessions now. */
  leave(nodeId: string): Promise<void>
  nodes(): Promise<ClusterNode[]>
  lease(sessionId: string): Promise<SessionLease | undefined>
  /**
   * Takes the session's lease when it has none, when it has expired, or when it is this node's
   * already; the epoch goes up whenever the owner changes. Undefined when another node holds it.
   */
  acquire(sessionId: string, nodeId: string, ttlMs: number): Promise<number | undefined>
  /** Renews every lease the node holds; returns those it still holds, by session, with their epochs. */
  renew(nodeId: string, ttlMs: number): Promise<Map<string, number>>
  release(nodeId: string, sessionIds: readonly string[]): Promise<void>
  /**
   * Sessions with unfinished schedules or background tasks recorded as running, whose lease is
   * missing, expired or held by `nodeId` already (a node that restarted).
   */
  orphans(nodeId: string, limit: number): Promise<string[]>
  /** Tells `wakeUps` what any node commits (see ClusterWakeUps). Resolves once listening; its result stops listening. */
  listen(wakeUps: ClusterWakeUps): Promise<() => Promise<void>>
}

/** What a node hears of the other nodes' commits. */
export interface ClusterWakeUps {
  /** A node committed events of the session, up to `seq` when told. */
  events(sessionId: string, seq?: number): void
  /** A node deleted the session. */
  deleted(sessionId: string): void
  /** A node added or removed an HTTP tool. */
  toolsChanged(): void
  /** The wake-ups' connection was lost and is back: what was sent meanwhile is lost, so read the rows again. */
  reconnected(): void
}

/** What a unit of work is checked against on a shared database: this node's lease epoch of each session it writes. */
export interface SessionFence {
  readonly nodeId: string
  /** The epoch of the session's lease this node holds; undefined when it holds none. */
  epochOf(sessionId: string): number | undefined
}

/** A unit of work refused because this node no longer holds the lease of a session it writes: another node took it over. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError'
  readonly code = 'STORE_LEASE_LOST'
}

export function isLeaseLost(error: unknown): boolean {
  return error instanceof LeaseLostError
}
