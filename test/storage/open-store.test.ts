/** Which backend a server stores in, and what the SQLite one gives the runtime. */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { isPostgresUrl, openStore, SQLITE_FILE } from '../../src/storage/open-store.js'
import { tempDir } from '../support/temp-dirs.js'

const logger = pino({ level: 'silent' })

describe('openStore', () => {
  it('opens the SQLite file of the data directory when no database URL is given, as a Store that reads what it wrote', async () => {
    const dataDir = await tempDir('open-store')
    const opened = openStore({ dataDir, logger })
    try {
      expect(opened.backend).toBe('sqlite')
      expect(existsSync(path.join(dataDir, SQLITE_FILE))).toBe(true)
      const session = { id: 's', workspace: dataDir, permissionMode: 'default' as const, interactive: true, permissionTimeoutMs: null, createdAt: '2026-01-01T00:00:00.000Z' }
      opened.store.transaction(() => {
        opened.store.insertSession(session)
        expect(opened.store.inTransaction).toBe(true)
      })
      expect(opened.store.inTransaction).toBe(false)
      expect(opened.store.getSession('s')).toEqual(session)
      expect(opened.trouble()).toBeUndefined()
      // Anything but damage is not remembered.
      opened.noteFailure(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))
      expect(opened.trouble()).toBeUndefined()
    } finally {
      opened.close()
    }
  })

  it('takes postgres:// and postgresql:// URLs, in any case, for PostgreSQL, and nothing else', () => {
    for (const url of ['postgres://u:p@h/db', 'postgresql://h/db', 'POSTGRES://h/db']) expect(isPostgresUrl(url)).toBe(true)
    for (const url of ['mysql://h/db', 'file:///data/toolexec.db', '/data/toolexec.db', 'postgres:/h/db']) expect(isPostgresUrl(url)).toBe(false)
  })
})
