/**
 * @module Opening the PostgreSQL store: the worker that holds the connection is started, the
 * migrations are applied, and the store is returned, all before this returns, as SQLite's is.
 */
import type { Logger } from 'pino'
import { ToolexecError } from '../../contracts/errors.js'
import type { OpenedStore } from '../../contracts/store.js'
import { redactedDatabaseUrl } from '../database-url.js'
import { applyPostgresMigrations, readPostgresMigrations } from './migrations.js'
import { PgBridge } from './pg-bridge.js'
import { PostgresStore } from './postgres-store.js'
import { startupFailure } from './startup-failure.js'
import { UnitOfWork } from './unit-of-work.js'

export function openPostgresStore(url: string, options: { readonly logger: Logger }): OpenedStore {
  const shown = redactedDatabaseUrl(url)
  const bridge = new PgBridge(url)
  const work = new UnitOfWork(bridge)
  try {
    const applied = applyPostgresMigrations(work, readPostgresMigrations(), shown)
    options.logger.info({ database: shown, migrations: applied }, 'PostgreSQL store open')
  } catch (error) {
    bridge.close()
    if (!(error instanceof ToolexecError && error.code === 'API_ERR_STORAGE_UNAVAILABLE')) throw error
    throw startupFailure(shown, error)
  }
  return {
    store: new PostgresStore(work),
    backend: 'postgres',
    commitGate: () => undefined,
    trouble: () => {
      const reason = connectionTrouble(work)
      return reason === undefined ? undefined : { code: 'API_ERR_STORAGE_UNAVAILABLE', reason }
    },
    // A lost connection is seen by the unit of work itself.
    noteFailure: () => undefined,
    close: () => bridge.close(),
  }
}

/** Why the database does not answer, asked anew when no unit of work is open (which also reconnects). */
function connectionTrouble(work: UnitOfWork): string | undefined {
  if (work.open) return work.lost
  try {
    work.query({ text: 'SELECT 1' })
  } catch {
    // work.lost says why.
  }
  return work.lost
}
