/**
 * The database URL as an operator writes it for a local PostgreSQL: the libpq socket form
 * `postgres://user@/db?host=/dir` starts the server, and a secret in the URL's query never
 * appears in what the server prints.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startMain } from '../support/main-process.js'
import { createDatabaseIn, dropDatabaseIn } from '../support/private-postgres.js'
import { tempDirSync } from '../support/temp-dirs.js'

const dir = inject('postgresDir')
const database = `url_${randomUUID().replaceAll('-', '')}`

afterAll(() => dropDatabaseIn(dir, database))

describe('TOOLEXEC_DATABASE_URL in the libpq socket form', () => {
  it('starts on postgres://user@/db?host=/dir and prints none of the secrets in its query', async () => {
    await createDatabaseIn(dir, database)
    const url = `postgres://postgres@/${database}?host=${dir}&password=hunter2-in-query&sslpassword=hunter2-ssl`
    const server = await startMain(tempDirSync('db-url'), 0, { TOOLEXEC_DATABASE_URL: url })
    try {
      const health = await fetch(`${server.url}/healthz`)
      expect(health.status).toBe(200)
    } finally {
      server.child.kill('SIGTERM')
    }
    expect(await server.exited).toBe(0)
    const { stdout, stderr } = server.output()
    expect(stdout).toContain(`postgres://postgres@/${database}?host=${dir}&password=***&sslpassword=***`)
    expect(stdout + stderr).not.toContain('hunter2')
  }, 60_000)
})
