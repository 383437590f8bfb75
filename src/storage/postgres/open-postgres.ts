/**
 * @module Opening the PostgreSQL store: a connection is made, the migrations are applied on it
 * (servers starting together take turns), and the store is returned with the cluster's rows,
 * all before this settles.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import type { OpenedStore } from '../../contracts/store.js'
import { redactedDatabaseUrl } from '../database-url.js'
import { applyPostgresMigrations, readPostgresMigrations } from './migrations.js'
import { connectPipelined } from './pg-client.js'
import { PgCluster } from './pg-cluster.js'
import { PgPool } from './pg-pool.js'
import { connectError, isUnavailable, storeError } from './pg-errors.js'
import { PostgresStore } from './postgres-store.js'
import { startupFailure } from './startup-failure.js'

export async function openPostgresStore(url: string, options: { readonly logger: Logger }): Promise<OpenedStore> {
  const shown = redactedDatabaseUrl(url)
  const client = await connectPipelined(url).catch((error: unknown) => {
    throw startupFailure(shown, connectError(error))
  })
  const applied = await migrated(client, shown)
  options.logger.info({ database: shown, migrations: applied }, 'PostgreSQL store open')
  const connection = new PgPool(url, client)
  const store = new PostgresStore(connection)
  return {
    store,
    backend: 'postgres',
    cluster: new PgCluster(connection, url, () => store.evictCaches()),
    fence: (fence) => store.fenceWith(fence),
    commitGate: () => undefined,
    trouble: async () => {
      const reason = await connection.trouble()
      return reason === undefined ? undefined : { code: 'API_ERR_STORAGE_UNAVAILABLE', reason }
    },
    // A lost connection is seen by the connection itself.
    noteFailure: () => undefined,
    close: () => connection.close(),
  }
}

/** The versions applied; the connection is ended when they cannot be. */
async function migrated(client: pg.Client, shown: string): Promise<number[]> {
  try {
    return await applyPostgresMigrations(client, readPostgresMigrations(), shown)
  } catch (error) {
    await client.end().catch(() => undefined)
    const failure = storeError(error)
    throw isUnavailable(failure) ? startupFailure(shown, failure) : error
  }
}
