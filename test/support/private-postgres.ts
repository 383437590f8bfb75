/**
 * A private PostgreSQL server for one test run or benchmark: a cluster made by the system's
 * `initdb` in a temporary directory, started by `pg_ctl` listening on a Unix socket in that
 * directory only (no TCP port, nothing shared with another run), stopped and removed by
 * `stop()`. Debian keeps the binaries in /usr/lib/postgresql/<version>/bin, off PATH, and
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` user the
 * package made.
 */
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)
// A Unix socket path is at most 107 bytes; the socket's own name takes 18 of them.
const MAX_SOCKET_DIR_CHARS = 80

export interface PrivatePostgresOptions {
  /** Off by default: a test cluster that dies with the machine is thrown away anyway. A benchmark turns it on to pay what a real server pays. */
  readonly fsync?: boolean
  /** More server settings, each `name=value` (given to the server as `-c name=value`), e.g. to preload pg_stat_statements for a benchmark. */
  readonly settings?: readonly string[]
}

export interface PrivatePostgres {
  /** The directory holding the cluster and its socket. */
  readonly dir: string
  /** The URL of `database` on this server (user `postgres`, no password: trust on the socket; `host` names the socket directory). */
  urlOf(database: string): string
  /** Makes an empty database and gives its URL. */
  createDatabase(name: string): Promise<string>
  dropDatabase(name: string): Promise<void>
  /** Stops the server, by default as a crash would (`pg_ctl -m immediate`), keeping its data for `resume`. */
  halt(mode?: 'fast' | 'immediate'): Promise<void>
  /** Starts the halted server again on the same socket and data. */
  resume(): Promise<void>
  /** `pg_ctl restart` in the given shutdown mode: `fast` ends the connections cleanly, `immediate` kills them as a crash would. */
  restart(mode: 'fast' | 'immediate'): Promise<void>
  /** Stops the server and removes its directory. */
  stop(): Promise<void>
}

/**
 * The directory of PostgreSQL's programs (initdb, pg_ctl, pg_dump, psql): where the initdb on
 * PATH really lives (PATH may hold links to a few of them only), else the newest of Debian's
 * versioned directories; undefined when PostgreSQL is not installed.
 */
export function postgresBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir !== '' && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) return path.dirname(realpathSync(path.join(dir, 'initdb')))
  }
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin')
}

/**
 * The URL of `database` on the server whose socket is in `dir` (user `postgres`, trusted on the
 * socket), in the form with the user in the query; the server takes `postgres://postgres@/db?host=`
 * too (test/http/postgres-database-url.test.ts).
 */
export function postgresUrl(dir: string, database: string): string {
  return `postgresql:///${encodeURIComponent(database)}?host=${encodeURIComponent(dir)}&user=postgres`
}

async function administer(dir: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl(dir, 'postgres') })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`

/** Makes an empty database on the server whose socket is in `dir`, and gives its URL. */
export async function createDatabaseIn(dir: string, name: string): Promise<string> {
  await administer(dir, `CREATE DATABASE ${quoted(name)}`)
  return postgresUrl(dir, name)
}

/** Drops a database there, its connections ended by force. */
export async function dropDatabaseIn(dir: string, name: string): Promise<void> {
  await administer(dir, `DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`)
}

/**
 * Makes a login role with a password that the server at `dir` checks (SCRAM): a pg_hba.conf
 * line for that role alone, put before the cluster's `trust` ones, so every other connection
 * stays as it was. For a test of a refused login.
 */
export async function createPasswordRoleIn(dir: string, role: string, password: string): Promise<void> {
  await administer(dir, `CREATE ROLE ${quoted(role)} LOGIN PASSWORD '${password.replaceAll("'", "''")}'`)
  const hba = path.join(dir, 'data', 'pg_hba.conf')
  writeFileSync(hba, `local all ${role} scram-sha-256\n${readFileSync(hba, 'utf8')}`)
  await administer(dir, 'SELECT pg_reload_conf()')
}

function clusterParent(): string {
  const tmp = os.tmpdir()
  return tmp.length + 20 <= MAX_SOCKET_DIR_CHARS ? tmp : '/tmp'
}

export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bin = postgresBinDir()
  if (bin === undefined) throw new Error('PostgreSQL is not installed: initdb and pg_ctl were found neither on PATH nor in /usr/lib/postgresql/*/bin (apt-get install postgresql)')
  const dir = mkdtempSync(path.join(clusterParent(), 'toolexec-pg-'))
  const asRoot = process.getuid?.() === 0
  const owner = asRoot ? await postgresUser() : undefined
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid)
  const asOwner = async (command: string, args: readonly string[]): Promise<void> => {
    const file = path.join(bin, command)
    await (asRoot ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args))
  }
  const data = path.join(dir, 'data')
  const settings = [`-k ${dir}`, "-c listen_addresses=''", `-c fsync=${options.fsync === true ? 'on' : 'off'}`, '-c max_connections=200', ...(options.settings ?? []).map((setting) => `-c ${setting}`)]
  const start = (): Promise<void> => asOwner('pg_ctl', ['-D', data, '-o', settings.join(' '), '-l', path.join(dir, 'log'), '-w', 'start'])
  const halt = (mode: 'fast' | 'immediate' = 'immediate'): Promise<void> => asOwner('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop'])
  const restart = (mode: 'fast' | 'immediate'): Promise<void> => asOwner('pg_ctl', ['-D', data, '-m', mode, '-o', settings.join(' '), '-l', path.join(dir, 'log'), '-w', 'restart'])
  try {
    await asOwner('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C'])
    await start()
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    dir,
    urlOf: (database) => postgresUrl(dir, database),
    createDatabase: (name) => createDatabaseIn(dir, name),
    dropDatabase: (name) => dropDatabaseIn(dir, name),
    halt: (mode) => halt(mode),
    resume: start,
    restart,
    async stop() {
      try {
        await halt()
      } catch {
        // Halted already.
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string): Promise<number> => Number((await run('id', [flag, 'postgres'])).stdout.trim())
  try {
    return { uid: await id('-u'), gid: await id('-g') }
  } catch {
    throw new Error('running as root, the cluster needs the "postgres" user that Debian\'s postgresql package makes; none exists')
  }
}
