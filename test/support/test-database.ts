/**
 * Which backend the running test project stores in: in the `postgres` project (vitest.config.ts)
 * every test server gets a database of its own on the run's private PostgreSQL server; in the
 * `sqlite` project, none (the SQLite file in the data directory).
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'

export type TestBackend = 'sqlite' | 'postgres'

export function testBackend(): TestBackend {
  return postgresDir() === undefined ? 'sqlite' : 'postgres'
}

function postgresDir(): string | undefined {
  return inject('postgresDir')
}

function urlOf(dir: string, database: string): string {
  return `postgresql://postgres@/${database}?host=${encodeURIComponent(dir)}`
}

async function administer(dir: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlOf(dir, 'postgres') })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** A new empty database's URL in the postgres project; undefined in the sqlite project. */
export async function freshDatabaseUrl(): Promise<string | undefined> {
  const dir = postgresDir()
  if (dir === undefined) return undefined
  const name = `t_${process.pid}_${randomBytes(6).toString('hex')}`
  await administer(dir, `CREATE DATABASE ${name}`)
  return urlOf(dir, name)
}

/** Drops the database a `freshDatabaseUrl` made (its connections ended by force), so a run does not fill the disk. */
export async function dropDatabase(url: string): Promise<void> {
  const dir = postgresDir()
  if (dir === undefined) return
  const name = new URL(url).pathname.slice(1)
  await administer(dir, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
}
