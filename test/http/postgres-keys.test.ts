/**
 * Two servers on one PostgreSQL database: a key minted on one works on the other, and a key
 * revoked on one is refused by the other at its very next request (keys are read from the
 * database on every request, not from a cache a notification must reach first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedKey } from '../../src/contracts/api-keys.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { freshDatabaseUrl } from '../support/test-database.js'

const TOKEN = 'admin-token-3e7a9c1d5b'
const ADMIN = { authorization: `Bearer ${TOKEN}` }

let first: TestServer
let second: TestServer

beforeAll(async () => {
  const databaseUrl = await freshDatabaseUrl()
  if (databaseUrl === undefined) throw new Error('this suite runs only in the postgres project')
  first = await startTestServer({ databaseUrl, env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_NODE_ID: 'keys-a' } })
  second = await startTestServer({ databaseUrl, env: { TOOLEXEC_TOKEN: TOKEN, TOOLEXEC_NODE_ID: 'keys-b' } })
})

afterAll(async () => {
  await Promise.all([first?.close(), second?.close()])
})

describe('keys on a cluster', () => {
  it('a key revoked on one server is refused by the other at once, every time', async () => {
    for (let round = 0; round < 5; round++) {
      const created = await first.json<CreatedKey>('POST', '/keys', { name: `agent ${round}`, role: 'observer' }, ADMIN)
      expect(created.status).toBe(201)
      const key = { authorization: `Bearer ${created.body.secret}` }
      expect((await second.json('GET', '/sessions', undefined, key)).status).toBe(200)
      expect((await first.json('DELETE', `/keys/${created.body.key.id}`, undefined, ADMIN)).status).toBe(204)
      expect((await second.json('GET', '/sessions', undefined, key)).status).toBe(401)
      expect((await first.json('GET', '/sessions', undefined, key)).status).toBe(401)
    }
  })
})
