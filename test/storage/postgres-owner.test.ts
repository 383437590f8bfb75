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
import { openStore } from '../../src/storage/open-store.js'
import { dropDatabase, freshDatabaseUrl } from '../support/test-database.js'
import { tempDir } from '../support/temp-dirs.js'

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
  const store = openStore({ dataDir: await tempDir('pg-owner'), databaseUrl: url, logger })
  opened.push(store)
  return store
}

function refusal(run: () => unknown): StartupError {
  try {
    run()
  } catch (error) {
    if (error instanceof StartupError) return error
    throw error
  }
  throw new Error('the open was not refused')
}

afterEach(async () => {
  for (const store of opened.splice(0)) store.close()
  for (const url of databases.splice(0)) await dropDatabase(url)
})

describe('the owner of a PostgreSQL database', () => {
  it('refuses a second server on the same database, naming the first, and lets one in once the first is closed', async () => {
    const url = await newDatabase()
    const first = await open(url)
    const dataDir = await tempDir('pg-owner')
    const error = refusal(() => openStore({ dataDir, databaseUrl: url, logger }))
    expect(error.code).toBe('STORE_ERR_DB_IN_USE')
    expect(error.message).toMatch(/in use by another toolexec server \(toolexec \(PID \d+ on .+\)\)/)
    expect(error.message).toContain(`PostgreSQL database ${url}:`)
    first.close()
    const second = await open(url)
    expect(second.trouble()).toBeUndefined()
  })

  it('is free again at once after its holder is killed with SIGKILL', async () => {
    const url = await newDatabase()
    const script = `import { openStore } from './src/storage/open-store.ts'; import { pino } from 'pino'; openStore({ dataDir: process.argv[1], databaseUrl: process.argv[2], logger: pino({ level: 'silent' }) }); console.log('open'); setInterval(() => {}, 1000)`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, await tempDir('pg-owner'), url], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    const [first] = (await once(child.stdout, 'data')) as [Buffer]
    expect(first.toString()).toContain('open')
    expect(refusal(() => openStore({ dataDir: '/nonexistent', databaseUrl: url, logger })).code).toBe('STORE_ERR_DB_IN_USE')
    child.kill('SIGKILL')
    await once(child, 'exit')
    const store = await open(url)
    expect(store.store.rowCounts().sessions).toBe(0)
  })
})
