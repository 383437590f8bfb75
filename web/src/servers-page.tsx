/** @module The servers sharing this one's database (GET /cluster): each with its heartbeat, live or not. */
import { useState } from 'preact/hooks'
import type { ClusterNode } from '../../src/contracts/cluster.js'
import { request } from './api.js'
import { usePolling } from './polling.js'

interface ClusterReply {
  readonly self: string
  readonly backend: 'sqlite' | 'postgres'
  readonly nodes: readonly ClusterNode[]
}

export function ServersPage() {
  const [cluster, setCluster] = useState<ClusterReply | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  usePolling(async () => {
    const reply = await request<ClusterReply>('GET', '/cluster')
    setError(reply.body === undefined ? reply.error : undefined)
    if (reply.body !== undefined) setCluster(reply.body)
  }, true)
  return (
    <section class="page" aria-labelledby="servers-title">
      <h1 id="servers-title">Servers</h1>
      <p class="hint">
        {cluster?.backend === 'postgres'
          ? 'The servers sharing this PostgreSQL database. Any of them answers any request; a server that misses its heartbeats has its sessions taken over by the others.'
          : 'This server alone: on SQLite, one server per data directory.'}
      </p>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="list">
        {(cluster?.nodes ?? []).map((node) => (
          <li key={node.id} class="card" data-testid="server-row" data-server-id={node.id} data-live={String(node.live)}>
            <strong>{node.id}</strong>
            {node.id === cluster?.self ? <span class="hint"> (this server)</span> : null}
            <div class="meta">
              <span data-testid="server-state">{node.live ? 'live' : 'missing heartbeats'}</span>
              <span>{node.url}</span>
              <span>started {new Date(node.startedAt).toLocaleString()}</span>
              <span>last heartbeat {new Date(node.seenAt).toLocaleTimeString()}</span>
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}
