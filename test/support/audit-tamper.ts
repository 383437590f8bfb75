/**
 * SQL of a test's own on the audit log of a store's database, as someone with the database in
 * hand would rewrite it: the append-only triggers dropped or disabled first.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { SQLITE_FILE } from '../../src/storage/open-store.js'
import type { StoreTarget } from './row-counts.js'

export async function tamperAuditLog(target: StoreTarget, statements: readonly string[]): Promise<void> {
  if (target.databaseUrl === undefined) {
    const db = new Database(path.join(target.dataDir, SQLITE_FILE))
    try {
      db.exec('DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete;')
      for (const sql of statements) db.exec(sql)
    } finally {
      db.close()
    }
    return
  }
  const client = new pg.Client({ connectionString: target.databaseUrl })
  await client.connect()
  try {
    await client.query('ALTER TABLE audit_log DISABLE TRIGGER USER')
    for (const sql of statements) await client.query(sql)
  } finally {
    await client.end()
  }
}
