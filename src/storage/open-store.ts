/**
 * @module Which backend a server stores in: PostgreSQL when a postgres:// (or postgresql://)
 * database URL is given, else the embedded SQLite file in the data directory, so that a
 * server started with nothing configured needs nothing else.
 */
import path from 'node:path'
import type { Logger } from 'pino'
import type { OpenedStore } from '../contracts/store.js'
import { openSqliteStore } from './sqlite/open-sqlite.js'

export const SQLITE_FILE = 'toolexec.db'

export interface StoreLocation {
  readonly dataDir: string
  readonly databaseUrl?: string | undefined
  readonly logger: Logger
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

/** Rejects, never throws: a file that cannot be opened and a database that does not answer fail alike. */
export async function openStore(location: StoreLocation): Promise<OpenedStore> {
  const { databaseUrl, logger } = location
  if (databaseUrl !== undefined && isPostgresUrl(databaseUrl)) {
    // pg is loaded only by a server that stores in PostgreSQL.
    const { openPostgresStore } = await import('./postgres/open-postgres.js')
    return await openPostgresStore(databaseUrl, { logger })
  }
  return openSqliteStore(path.join(location.dataDir, SQLITE_FILE))
}
