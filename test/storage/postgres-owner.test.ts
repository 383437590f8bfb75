/**
 * One server per PostgreSQL database, as one per data directory: the second server to open a
 * database is refused, naming the first, and the database is free again once the first is
 * closed or killed (PostgreSQL drops the owner lock with its connection).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { StartupError } from '../../src/contracts/errors.js'
import type { OpenedStore } from '../../src/contracts/store.js'
import { openPostgresStore } from '../../src/storage/postgres/open-postgres.js'
import { dropDatabase, freshDatabaseUrl } from '../support/test-database.js'

const logger = pino({ level: 'silent' })
const ROOT = path.resolve(import.meta.dirname, '../..')
const opened: OpenedStore[] = []
const databases: string[] = []

async function newDatabase(): Promise<string> {
  const url = await freshDatabaseUrl()
  if (url === undefined) throw new Error('this suite runs only in the postgres project')
  databases.push(url)
  return url
}

async function open(url: string): Promise<OpenedStore> {
  const store = await openPostgresStore(url, { logger })
  opened.push(store)
  return store
}

async function refusal(opening: Promise<unknown>): Promise<StartupError> {
  try {
    await opening
  } catch (error) {
    if (error instanceof StartupError) return error
    throw error
  }
  throw new Error('the open was not refused')
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
  for (const url of databases.splice(0)) await dropDatabase(url)
})

describe('the owner of a PostgreSQL database', () => {
  it('refuses a second server on the same database, naming the first, and lets one in once the first is closed', async () => {
    const url = await newDatabase()
    const first = await open(url)
    const error = await refusal(openPostgresStore(url, { logger }))
    expect(error.code).toBe('STORE_ERR_DB_IN_USE')
    expect(error.message).toMatch(/in use by another toolexec server \(toolexec \(PID \d+ on .+\)\)/)
    expect(error.message).toContain(`PostgreSQL database ${url}:`)
    await first.close()
    const second = await open(url)
    expect(await second.trouble()).toBeUndefined()
  })

  it('is free again at once after its holder is killed with SIGKILL', async () => {
    const url = await newDatabase()
    const script = `import { openPostgresStore } from './src/storage/postgres/open-postgres.ts'; import { pino } from 'pino'; await openPostgresStore(process.argv[1], { logger: pino({ level: 'silent' }) }); console.log('open'); setInterval(() => {}, 1000)`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, url], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    const [first] = (await once(child.stdout, 'data')) as [Buffer]
    expect(first.toString()).toContain('open')
    expect((await refusal(openPostgresStore(url, { logger }))).code).toBe('STORE_ERR_DB_IN_USE')
    child.kill('SIGKILL')
    await once(child, 'exit')
    const store = await open(url)
    expect(await store.store.sessions.ids()).toEqual([])
  })
})
