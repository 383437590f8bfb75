/**
 * Issue 12, damaged, foreign or newer databases at the edges: `npm start` refuses each with
 * one line and exit 2 (no stack trace), an embedder's startServer with a StartupError that
 * gives the data directory back, and damage met while running answers with its own code.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { hasCode, StartupError } from '../../src/contracts/errors.js'
import { openDatabase, readMigrations } from '../../src/storage/sqlite/database.js'
import { runRefusedMain } from '../support/main-process.js'
import { startTestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const dirs: string[] = []
const NEWEST = Math.max(...readMigrations().map((migration) => migration.version))

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function dataDirWith(write: (file: string) => void): { dataDir: string; file: string } {
  const dataDir = tempDirSync('damage')
  dirs.push(dataDir)
  const file = path.join(dataDir, 'toolexec.db')
  write(file)
  return { dataDir, file }
}

const fingerprint = (file: string): string => `${createHash('sha256').update(readFileSync(file)).digest('hex')} ${statSync(file).mtimeMs}`

const garbage = (file: string): void => writeFileSync(file, Buffer.alloc(4_096, 'not sqlite '))
const foreign = (file: string): void => {
  const db = new Database(file)
  db.pragma('application_id = 0x0badcafe')
  db.exec('CREATE TABLE photos (id INTEGER PRIMARY KEY)')
  db.close()
}
const newer = (file: string): void => {
  const db = openDatabase(file)
  db.pragma(`user_version = ${NEWEST + 5}`)
  db.close()
}

describe('npm start on a database it must not open', () => {
  it.each([
    ['a garbage header', garbage, 'is damaged: its header does not start with "SQLite format 3"; restore it from a backup or move it away'],
    ['a foreign SQLite file', foreign, "is not a toolexec database: its application_id is 0x0badcafe, not toolexec's 0x74786563; start with another --data-dir"],
    ['a newer toolexec database', newer, `was written by a newer toolexec (schema version ${NEWEST + 5}; this build knows up to ${NEWEST}); upgrade toolexec to open it`],
  ])(
    '%s: exits 2 with one line naming the file and what is wrong, and leaves it as it was',
    async (_what, write, reason) => {
      const { dataDir, file } = dataDirWith(write)
      const before = fingerprint(file)
      const run = await runRefusedMain(dataDir)
      expect(run.code).toBe(2)
      expect(run.stderr).toBe(`toolexec: Database ${file} ${reason}\n`)
      expect(run.stdout).not.toContain('listening')
      expect(fingerprint(file)).toBe(before)
    },
    30_000,
  )
})

describe('npm start where the database file is no file', () => {
  it.each([
    ['a directory', (file: string) => mkdirSync(file), 'a directory'],
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file]), 'a FIFO'],
  ])(
    '%s named toolexec.db: exits 2 with one line naming it, and leaves it there',
    async (_what, make, kind) => {
      const { dataDir, file } = dataDirWith(make)
      const run = await runRefusedMain(dataDir)
      expect(run).toMatchObject({ code: 2, stderr: `toolexec: Database ${file} is not a toolexec database: it is ${kind}, not a regular file; start with another --data-dir\n` })
      expect(run.stdout).not.toContain('listening')
      expect(lstatSync(file).isFile()).toBe(false)
    },
    30_000,
  )

  it('a directory named toolexec.db-wal: exits 2 with one line naming it', async () => {
    const { dataDir, file } = dataDirWith((name) => mkdirSync(`${name}-wal`))
    const run = await runRefusedMain(dataDir)
    expect(run).toMatchObject({ code: 2, stderr: `toolexec: Database ${file} is not a toolexec database: ${file}-wal is a directory, not a regular file; start with another --data-dir\n` })
  }, 30_000)
})

describe('startServer on a database it must not open', () => {
  it('rejects with a StartupError and gives the data directory back', async () => {
    const { dataDir, file } = dataDirWith(garbage)
    const refused = startTestServer({ dataDir })
    await expect(refused).rejects.toBeInstanceOf(StartupError)
    await expect(refused).rejects.toSatisfy((error) => hasCode(error, 'STORE_ERR_DB_DAMAGED'))
    rmSync(file)
    const server = await startTestServer({ dataDir })
    await server.close()
  })
})

describe('damage met while running', () => {
  it('a route reading a damaged page answers 500 API_ERR_STORAGE_CORRUPT, and /healthz 503 from then on', async () => {
    const marker = 'marker-workspace-'.padEnd(200, 'm')
    const { dataDir, file } = dataDirWith((target) => {
      mkdirSync(path.dirname(target), { recursive: true })
      const db = openDatabase(target)
      const insert = db.prepare("INSERT INTO sessions (id, workspace, permission_mode, interactive, created_at) VALUES (?, ?, 'default', 1, 'now')")
      db.transaction(() => {
        for (let i = 0; i < 6_000; i++) insert.run(i === 3_000 ? 'damaged' : `s-${i}`, i === 3_000 ? marker : `/w/${'p'.repeat(300)}/${i}`)
      })()
      db.close()
    })
    const server = await startTestServer({ dataDir })
    try {
      expect(await server.json('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } })
      const bytes = readFileSync(file)
      const pageSize = bytes.readUInt16BE(16)
      const at = bytes.indexOf(marker)
      expect(at).toBeGreaterThan(bytes.length / 4)
      const fd = openSync(file, 'r+')
      writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, Math.floor(at / pageSize) * pageSize)
      closeSync(fd)

      const read = await server.json<{ error: { code: string; message: string } }>('GET', '/sessions/damaged')
      expect(read.status).toBe(500)
      expect(read.body.error.code).toBe('API_ERR_STORAGE_CORRUPT')
      expect(read.body.error.message).toMatch(/^The database is damaged \(.+\): stop the server and restore toolexec.db from a backup$/)
      const health = await server.json<{ error: { code: string } }>('GET', '/healthz')
      expect([health.status, health.body.error.code]).toEqual([503, 'API_ERR_STORAGE_CORRUPT'])
      // Other rows still answer: the server keeps serving what it can.
      expect((await server.json('GET', '/sessions/s-1')).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})
