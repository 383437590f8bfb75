/**
 * The session leases of a cluster in PostgreSQL against the fence each unit of work begins with
 * (migrations/postgres/014): a taking waits for the units that passed the fence, and none after
 * it passes; the owner's renewals and other nodes' requests for its sessions wait for nothing.
 * A unit in flight is played here by a transaction left open after its fence.
 */
import pg from 'pg'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClusterStore } from '../../src/contracts/cluster.js'
import type { OpenedStore } from '../../src/contracts/store.js'
import { SessionOwnership } from '../../src/sessions/session-ownership.js'
import { openPostgresStore } from '../../src/storage/postgres/open-postgres.js'
import { freshDatabaseUrl } from '../support/test-database.js'

const logger = pino({ level: 'silent' })
const LONG_MS = 60_000
let opened: OpenedStore
let cluster: ClusterStore
let unit: pg.Client

beforeEach(async () => {
  const url = await freshDatabaseUrl()
  if (url === undefined) throw new Error('this suite runs only in the postgres project')
  opened = await openPostgresStore(url, { logger })
  cluster = opened.cluster
  unit = new pg.Client({ connectionString: url })
  await unit.connect()
})

afterEach(async () => {
  await unit.end()
  await opened.close()
})

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
  const settled = promise.then(
    () => true,
    () => true,
  )
  try {
    return await Promise.race([settled, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Opens a unit of `node` writing `session` at `epoch`: its fence passes, and it stays open. */
async function openUnit(node: string, session: string, epoch: number): Promise<void> {
  await unit.query('BEGIN')
  await fence(node, session, epoch)
}

function fence(node: string, session: string, epoch: number): Promise<unknown> {
  return unit.query('SELECT toolexec_fence($1, ARRAY[$2]::text[], ARRAY[$3]::bigint[])', [node, session, epoch])
}

describe('session leases and the fence of units on PostgreSQL', () => {
  it('a taking waits for a unit of the former owner that passed its fence; a unit of it after the taking is refused', async () => {
    expect(await cluster.acquire('s', 'a', 300)).toBe(1)
    await openUnit('a', 's', 1)
    await pause(400)
    const taking = cluster.acquire('s', 'b', LONG_MS)
    expect(await settlesWithin(taking, 500)).toBe(false)
    await unit.query('COMMIT')
    expect(await taking).toBe(2)
    await expect(fence('a', 's', 1)).rejects.toMatchObject({ code: 'TL001' })
    await expect(fence('b', 's', 2)).resolves.toBeDefined()
  })

  it("renewing a node's leases waits for none of its units in flight", async () => {
    expect(await cluster.acquire('s', 'a', LONG_MS)).toBe(1)
    await openUnit('a', 's', 1)
    const renewal = cluster.renew('a', LONG_MS)
    const settled = await settlesWithin(renewal, 1_000)
    await unit.query('ROLLBACK')
    expect(settled).toBe(true)
    expect(await renewal).toEqual(new Map([['s', 1]]))
  })

  it('a node that gets a request for a session another node runs passes it on without waiting for that node’s units in flight', async () => {
    await cluster.heartbeat({ id: 'a', url: 'http://127.0.0.1:9' }, LONG_MS)
    expect(await cluster.acquire('s', 'a', LONG_MS)).toBe(1)
    const b = new SessionOwnership({ cluster, nodeId: 'b', leaseMs: LONG_MS, logger, adopt: () => Promise.resolve(), drop: () => undefined })
    await openUnit('a', 's', 1)
    const claim = b.claim('s')
    const settled = await settlesWithin(claim, 1_000)
    await unit.query('ROLLBACK')
    expect(settled).toBe(true)
    expect(await claim).toMatchObject({ local: false, owner: 'a', node: { id: 'a', live: true } })
    expect(b.epochOf('s')).toBeUndefined()
  })
})

/** The cluster's store, counting its reads of a lease. */
function countingLeaseReads(): { counted: ClusterStore; reads: () => number } {
  let reads = 0
  const counted: ClusterStore = Object.assign(Object.create(cluster) as ClusterStore, {
    lease: (sessionId: string) => {
      reads++
      return cluster.lease(sessionId)
    },
  })
  return { counted, reads: () => reads }
}

describe('the owner a node passes requests on to', () => {
  it('is remembered for a moment: requests passed on to a live owner read its lease once, and again once forgotten', async () => {
    await cluster.heartbeat({ id: 'a', url: 'http://127.0.0.1:1' }, LONG_MS)
    expect(await cluster.acquire('s', 'a', LONG_MS)).toBe(1)
    const { counted, reads } = countingLeaseReads()
    const b = new SessionOwnership({ cluster: counted, nodeId: 'b', leaseMs: LONG_MS, logger, adopt: () => Promise.resolve(), drop: () => undefined })
    for (let request = 0; request < 5; request++) expect(await b.claim('s')).toMatchObject({ local: false, owner: 'a' })
    expect(reads()).toBe(1)
    // The owner did not carry a request out (gone, or no longer the owner): the next one reads the lease again.
    b.forgetOwner('s')
    expect(await b.claim('s')).toMatchObject({ local: false, owner: 'a' })
    expect(reads()).toBe(2)
  })

  it('is not remembered past a third of the lease time, within which the owner renews it', async () => {
    const leaseMs = 300
    await cluster.heartbeat({ id: 'a', url: 'http://127.0.0.1:1' }, LONG_MS)
    expect(await cluster.acquire('s', 'a', LONG_MS)).toBe(1)
    const { counted, reads } = countingLeaseReads()
    const b = new SessionOwnership({ cluster: counted, nodeId: 'b', leaseMs, logger, adopt: () => Promise.resolve(), drop: () => undefined })
    await b.claim('s')
    await pause(leaseMs / 3 + 20)
    await b.claim('s')
    expect(reads()).toBe(2)
  })
})
