/**
 * Row counts of every table of the store, read on a connection of their own (the store's port
 * has no such read): a test proves with them that a refused request wrote nothing. SQLite's file
 * is opened read-only; PostgreSQL's database is asked on a client of its own; each is closed after.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { isPostgresUrl, SQLITE_FILE } from '../../src/storage/open-store.js'
import { STORE_TABLES } from '../../src/storage/rows.js'

export interface StoreTarget {
  readonly dataDir: string
  readonly databaseUrl?: string | undefined
}

// One statement counts them all; PostgreSQL's bigint count is cast, or it would come back as text.
const COUNTS_SQL = `SELECT ${STORE_TABLES.map((table) => `(SELECT count(*) FROM ${table})::integer AS ${table}`).join(', ')}`

export async function rowCounts(target: StoreTarget): Promise<Record<string, number>> {
  const { dataDir, databaseUrl } = target
  return databaseUrl !== undefined && isPostgresUrl(databaseUrl) ? await postgresRowCounts(databaseUrl) : sqliteRowCounts(path.join(dataDir, SQLITE_FILE))
}

function sqliteRowCounts(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return Object.fromEntries(STORE_TABLES.map((table) => [table, db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number]))
  } finally {
    db.close()
  }
}

async function postgresRowCounts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const result = await client.query<Record<string, number>>(COUNTS_SQL)
    return { ...result.rows[0] }
  } finally {
    await client.end()
  }
}
