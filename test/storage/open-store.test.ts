/** Which backend a server stores in, and what the SQLite one gives the runtime. */
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { isPostgresUrl, openStore, SQLITE_FILE } from '../../src/storage/open-store.js'
import { tempDir } from '../support/temp-dirs.js'

const logger = pino({ level: 'silent' })

describe('openStore', () => {
  it('opens the SQLite file of the data directory when no database URL is given, as a Store that reads what it wrote', async () => {
    const dataDir = await tempDir('open-store')
    const opened = await openStore({ dataDir, logger })
    try {
      expect(opened.backend).toBe('sqlite')
      expect(existsSync(path.join(dataDir, SQLITE_FILE))).toBe(true)
      const session = { id: 's', workspace: dataDir, permissionMode: 'default' as const, interactive: true, permissionTimeoutMs: null, createdAt: '2026-01-01T00:00:00.000Z' }
      await opened.store.commit((unit) => unit.sessions.insert(session))
      expect(await opened.store.sessions.get('s')).toEqual(session)
      expect(await opened.trouble()).toBeUndefined()
      // Anything but damage is not remembered.
      opened.noteFailure(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))
      expect(await opened.trouble()).toBeUndefined()
    } finally {
      await opened.close()
    }
  })

  it('tells damage a query met, and after close the store answers nothing: its reads and commits reject', async () => {
    const dataDir = await tempDir('open-store')
    const opened = await openStore({ dataDir, logger })
    opened.noteFailure(Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }))
    expect(await opened.trouble()).toEqual({ code: 'API_ERR_STORAGE_CORRUPT', reason: 'database disk image is malformed' })
    await opened.close()
    await expect(opened.store.sessions.ids()).rejects.toThrow()
    await expect(opened.store.commit((unit) => unit.rules.deleteClientTool('x'))).rejects.toThrow()
    // Closing again is harmless.
    await opened.close()
  })

  it('rejects, never throws, when the data directory cannot hold the file', async () => {
    const dataDir = await tempDir('open-store')
    await writeFile(path.join(dataDir, 'not-a-dir'), '')
    await expect(openStore({ dataDir: path.join(dataDir, 'not-a-dir'), logger })).rejects.toThrow()
  })

  it('takes postgres:// and postgresql:// URLs, in any case, for PostgreSQL, and nothing else', () => {
    for (const url of ['postgres://u:p@h/db', 'postgresql://h/db', 'POSTGRES://h/db']) expect(isPostgresUrl(url)).toBe(true)
    for (const url of ['mysql://h/db', 'file:///data/toolexec.db', '/data/toolexec.db', 'postgres:/h/db']) expect(isPostgresUrl(url)).toBe(false)
  })
})
