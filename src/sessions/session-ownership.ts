/**
 * @module Which sessions this node runs, on a database several nodes share: each one whose
 * lease it holds. It registers the node and renews its heartbeat and leases together, a third
 * of the lease time apart; a lease found taken by another node (this one was paused, or lost
 * the database past its lease) is dropped at once: what ran of it here is stopped and nothing
 * more of it is written (the database's fence refuses it anyway). Sessions with unfinished
 * work whose lease ran out are adopted by a sweep; any other by the node that gets work for it.
 * A clean stop ends the node's leases, so that others adopt its sessions at once. On a
 * database of one server (solo) the node owns every session and none of this runs.
 */
import type { Logger } from 'pino'
import type { ClusterNode, ClusterStore, ClusterWakeUps, NodeIdentity, SessionFence, SessionLease } from '../contracts/cluster.js'

/** Where a session runs, for a request about it. */
export type Claim = { readonly local: true } | { readonly local: false; readonly owner: string; readonly node: ClusterNode | undefined }

export interface OwnershipParts {
  readonly cluster: ClusterStore
  readonly nodeId: string
  readonly leaseMs: number
  readonly logger: Logger
  /** Recovers a session just taken over: its running calls end interrupted, the rest goes on (recovery.ts). */
  readonly adopt: (sessionId: string) => Promise<void>
  /** Stops what runs of a session whose lease another node took, and forgets it here. */
  readonly drop: (sessionId: string) => void
}

const LOCAL: Claim = { local: true }
const elsewhere = (lease: SessionLease): Claim => ({ local: false, owner: lease.owner, node: lease.node })
/**
 * How long a session found held by a live node is passed on to it without reading its lease
 * again: at most a third of the lease time, within which the owner renews it; a takeover meanwhile
 * costs a request passed on to the former owner, which answers 503 (the client retries).
 */
const OWNER_MEMORY_MS = 1_000
const MAX_REMEMBERED_OWNERS = 10_000
/** Sessions a sweep adopts at most at once. */
const SWEEP_BATCH = 100

export class SessionOwnership implements SessionFence {
  readonly #parts: OwnershipParts
  readonly #held = new Map<string, number>()
  /** Claims in flight, so that two requests for one session take its lease once. */
  readonly #claiming = new Map<string, Promise<Claim>>()
  /** Sessions a live node held when last read, until when to pass requests on to it unread. */
  readonly #elsewhere = new Map<string, { readonly claim: Claim; readonly until: number }>()
  #identity: NodeIdentity | undefined
  #timer: NodeJS.Timeout | undefined
  #ticks = 0
  #stopped = false
  #unlisten: (() => Promise<void>) | undefined

  constructor(parts: OwnershipParts) {
    this.#parts = parts
  }

  get nodeId(): string {
    return this.#parts.nodeId
  }

  get solo(): boolean {
    return this.#parts.cluster.solo
  }

  epochOf(sessionId: string): number | undefined {
    return this.#held.get(sessionId)
  }

  /** Sessions this node holds now. */
  get heldCount(): number {
    return this.#held.size
  }

  /** Local when this node runs the session, having taken its lease if it was free; else the node that does. */
  claim(sessionId: string): Promise<Claim> {
    if (this.solo || this.#held.has(sessionId)) return Promise.resolve(LOCAL)
    const known = this.#elsewhere.get(sessionId)
    if (known !== undefined && known.until > performance.now()) return Promise.resolve(known.claim)
    let claiming = this.#claiming.get(sessionId)
    if (claiming === undefined) {
      claiming = this.#take(sessionId)
        .then((claim) => this.#remember(sessionId, claim))
        .finally(() => this.#claiming.delete(sessionId))
      this.#claiming.set(sessionId, claiming)
    }
    return claiming
  }

  /** The owner a request was passed on to did not carry it out (gone, or no longer the owner): the next request reads the lease again. */
  forgetOwner(sessionId: string): void {
    this.#elsewhere.delete(sessionId)
  }

  /** A live owner elsewhere is remembered for a moment: each request passed on to it then costs no read of its lease. */
  #remember(sessionId: string, claim: Claim): Claim {
    if (claim.local || claim.node?.live !== true) return claim
    if (this.#elsewhere.size >= MAX_REMEMBERED_OWNERS) this.#elsewhere.clear()
    this.#elsewhere.set(sessionId, { claim, until: performance.now() + Math.min(OWNER_MEMORY_MS, this.#parts.leaseMs / 3) })
    return claim
  }

  /** Forgets a deleted session's lease, here and in the database. */
  async release(sessionId: string): Promise<void> {
    if (this.solo || !this.#held.delete(sessionId)) return
    await this.#parts.cluster.release(this.nodeId, [sessionId])
  }

  /** Registers the node (as reachable at `url`), listens for other nodes' commits, and adopts what was left unowned. */
  async start(url: string, wakeUps: ClusterWakeUps): Promise<void> {
    this.#identity = { id: this.nodeId, url }
    await this.#parts.cluster.heartbeat(this.#identity, this.#parts.leaseMs)
    if (this.solo) return
    this.#unlisten = await this.#parts.cluster.listen(wakeUps)
    await this.sweep()
    this.#timer = setInterval(() => void this.#tick(), Math.max(50, Math.floor(this.#parts.leaseMs / 3)))
    this.#timer.unref()
  }

  /** Ends the node's leases and its row: the other nodes adopt its sessions at once. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearInterval(this.#timer)
    await this.#unlisten?.()
    if (this.solo) return
    await this.#parts.cluster.leave(this.nodeId)
    this.#held.clear()
  }

  /** Adopts the sessions with unfinished work that no live node holds. */
  async sweep(): Promise<void> {
    const orphans = await this.#parts.cluster.orphans(this.nodeId, SWEEP_BATCH)
    await Promise.all(orphans.filter((sessionId) => !this.#held.has(sessionId)).map((sessionId) => this.claim(sessionId)))
  }

  async nodes(): Promise<ClusterNode[]> {
    return this.#parts.cluster.nodes()
  }

  /** Read first: a lease held by another node is passed on to it, not asked for, which would make the database lock it. */
  async #take(sessionId: string): Promise<Claim> {
    const lease = await this.#parts.cluster.lease(sessionId)
    if (lease !== undefined && lease.current && lease.owner !== this.nodeId) return elsewhere(lease)
    return this.#acquire(sessionId)
  }

  async #acquire(sessionId: string): Promise<Claim> {
    const { cluster, nodeId, leaseMs } = this.#parts
    const epoch = await cluster.acquire(sessionId, nodeId, leaseMs)
    if (epoch === undefined) return this.#ownerOf(sessionId)
    this.#held.set(sessionId, epoch)
    this.#parts.logger.info({ sessionId, epoch }, 'session lease taken')
    await this.#parts.adopt(sessionId)
    return LOCAL
  }

  async #ownerOf(sessionId: string): Promise<Claim> {
    const lease = await this.#parts.cluster.lease(sessionId)
    // Taken and let go meanwhile: the next request takes it.
    if (lease === undefined) return this.#acquire(sessionId)
    return elsewhere(lease)
  }

  async #tick(): Promise<void> {
    if (this.#stopped || this.#identity === undefined) return
    const { cluster, nodeId, leaseMs, logger } = this.#parts
    try {
      await cluster.heartbeat(this.#identity, leaseMs)
      // Only leases held before the renewal was sent: one taken meanwhile may be missing from its answer.
      const before = [...this.#held]
      const still = await cluster.renew(nodeId, leaseMs)
      for (const [sessionId, epoch] of before) if (this.#held.get(sessionId) === epoch && still.get(sessionId) !== epoch) this.#lose(sessionId)
      if (++this.#ticks % 3 === 0) await this.sweep()
    } catch (error) {
      logger.warn({ err: error }, 'cluster heartbeat failed')
    }
  }

  /** Another node took the session over: nothing more of it runs or is written here. */
  #lose(sessionId: string): void {
    if (!this.#held.delete(sessionId)) return
    this.#parts.logger.warn({ sessionId, node: this.nodeId }, 'session lease lost to another node: its work here is stopped and nothing more of it is written')
    this.#parts.drop(sessionId)
  }
}
