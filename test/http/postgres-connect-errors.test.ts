/**
 * A start that cannot open its PostgreSQL database says in one line (exit 2) what is wrong and
 * what to fix: a refused login, a database that does not exist, no server at the address.
 */
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { runRefusedMain } from '../support/main-process.js'
import { createPasswordRoleIn } from '../support/private-postgres.js'
import { tempDirSync } from '../support/temp-dirs.js'

const dir = inject('postgresDir')

async function refusedWith(url: string): Promise<string> {
  const run = await runRefusedMain(tempDirSync('pg-connect'), { TOOLEXEC_DATABASE_URL: url }, 30_000)
  expect(run.code, run.stdout + run.stderr).toBe(2)
  expect(run.stderr).toMatch(/^toolexec: [^\n]+\n$/)
  return run.stderr
}

describe('a PostgreSQL database it cannot open: one line saying what to fix, exit 2', () => {
  it('a wrong password (SQLSTATE 28P01), the password masked', async () => {
    const role = `pw_${randomUUID().replaceAll('-', '').slice(0, 12)}`
    await createPasswordRoleIn(dir, role, 'right-one')
    const url = `postgres://${role}:wrong-one@/postgres?host=${dir}`
    expect(await refusedWith(url)).toBe(
      `toolexec: PostgreSQL refused the login to postgres://${role}:***@/postgres?host=${dir}: password authentication failed for user "${role}"; ` +
        "check the user and password in TOOLEXEC_DATABASE_URL (or its passfile) and the server's pg_hba.conf\n",
    )
  }, 60_000)

  it('a database that does not exist (SQLSTATE 3D000)', async () => {
    const url = `postgresql:///no_such_database?host=${dir}&user=postgres`
    expect(await refusedWith(url)).toBe(
      `toolexec: PostgreSQL database ${url} does not exist: database "no_such_database" does not exist; create it (createdb) or name an existing database in TOOLEXEC_DATABASE_URL\n`,
    )
  }, 60_000)

  it('a socket directory with no server in it (ENOENT)', async () => {
    const empty = tempDirSync('no-server')
    const url = `postgresql:///toolexec?host=${empty}&user=postgres`
    expect(await refusedWith(url)).toBe(
      `toolexec: No PostgreSQL server answers for ${url}: connect ENOENT ${path.join(empty, '.s.PGSQL.5432')}; start it, or correct the host, port or socket directory in TOOLEXEC_DATABASE_URL\n`,
    )
  }, 60_000)

  it('a TCP port where nothing listens (ECONNREFUSED)', async () => {
    const url = 'postgres://postgres@127.0.0.1:1/toolexec'
    expect(await refusedWith(url)).toBe(
      `toolexec: No PostgreSQL server answers for ${url}: connect ECONNREFUSED 127.0.0.1:1; start it, or correct the host, port or socket directory in TOOLEXEC_DATABASE_URL\n`,
    )
  }, 60_000)
})
