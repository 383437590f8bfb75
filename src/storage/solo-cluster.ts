/**
 * @module The cluster of one server that the embedded database is: it owns every session, at
 * epoch 1, and stores nothing about it; its own commits wake its readers through the bus.
 */
import type { ClusterNode, ClusterStore, NodeIdentity, SessionLease } from '../contracts/cluster.js'

export class SoloCluster implements ClusterStore {
  readonly solo = true
  #node: (NodeIdentity & { readonly startedAt: string }) | undefined

  heartbeat(node: NodeIdentity): Promise<void> {
    this.#node ??= { ...node, startedAt: new Date().toISOString() }
    return Promise.resolve()
  }

  leave(): Promise<void> {
    return Promise.resolve()
  }

  nodes(): Promise<ClusterNode[]> {
    const node = this.#node
    return Promise.resolve(node === undefined ? [] : [{ ...node, seenAt: new Date().toISOString(), live: true }])
  }

  async lease(sessionId: string): Promise<SessionLease | undefined> {
    const [node] = await this.nodes()
    return node === undefined ? undefined : { sessionId, owner: node.id, epoch: 1, current: true, node }
  }

  acquire(): Promise<number | undefined> {
    return Promise.resolve(1)
  }

  renew(): Promise<Map<string, number>> {
    return Promise.resolve(new Map<string, number>())
  }

  release(): Promise<void> {
    return Promise.resolve()
  }

  orphans(): Promise<string[]> {
    return Promise.resolve([])
  }

  listen(): Promise<() => Promise<void>> {
    return Promise.resolve(() => Promise.resolve())
  }
}
