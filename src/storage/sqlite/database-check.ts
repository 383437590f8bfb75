/**
 * @module What a database file must be before toolexec writes to it: an SQLite file whose
 * header is sound, that passes `PRAGMA quick_check`, that is toolexec's own (its
 * application_id, or an older toolexec database from before the id with our
 * schema_migrations) and whose schema is not newer than this build. Anything else is
 * refused with one line naming the file and what is wrong, and left exactly as it was:
 * the file is read byte by byte, then through a read-only connection.
 */
import { closeSync, existsSync, openSync, readSync, rmSync, statSync, type Stats } from 'node:fs'
import Database from 'better-sqlite3'
import { StartupError } from '../../contracts/errors.js'

/** 'txec': PRAGMA application_id of every toolexec database. */
export const APPLICATION_ID = 0x74786563
const HEADER_BYTES = 100
const MAGIC = 'SQLite format 3\0'

export interface KnownMigration {
  readonly version: number
  readonly name: string
}

/** Throws a StartupError when `file` must not be opened; a missing or empty file is a new database. */
export function checkDatabaseFile(file: string, known: readonly KnownMigration[]): void {
  const stat = statSync(file, { throwIfNoEntry: false })
  checkRegularFiles(file, stat)
  const size = stat?.size ?? 0
  if (size === 0) return
  checkHeader(file, readHeader(file, size))
  // A read-only connection to a WAL database creates these; what it created goes again.
  const created = ['-wal', '-shm'].map((suffix) => `${file}${suffix}`).filter((sidecar) => !existsSync(sidecar))
  try {
    readChecked(file, known)
  } finally {
    for (const sidecar of created) rmSync(sidecar, { force: true })
  }
}

function readChecked(file: string, known: readonly KnownMigration[]): void {
  let db: Database.Database
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw damaged(file, `it cannot be opened (${(error as Error).message})`)
  }
  try {
    checkContents(file, db, known)
  } catch (error) {
    if (error instanceof StartupError) throw error
    throw damaged(file, `it cannot be read (${(error as Error).message})`)
  } finally {
    db.close()
  }
}

function readHeader(file: string, size: number): Buffer {
  if (size < HEADER_BYTES) throw damaged(file, `it is ${size} bytes long, shorter than an SQLite header`)
  const header = Buffer.alloc(HEADER_BYTES)
  const fd = openSync(file, 'r')
  try {
    readSync(fd, header, 0, HEADER_BYTES, 0)
  } finally {
    closeSync(fd)
  }
  return header
}

function checkHeader(file: string, header: Buffer): void {
  if (header.toString('latin1', 0, MAGIC.length) !== MAGIC) throw damaged(file, 'its header does not start with "SQLite format 3"')
  const raw = header.readUInt16BE(16)
  const pageSize = raw === 1 ? 65_536 : raw
  const powerOfTwo = (pageSize & (pageSize - 1)) === 0
  if (!powerOfTwo || pageSize < 512 || pageSize > 65_536) throw damaged(file, `its header gives a page size of ${raw}`)
}

function checkContents(file: string, db: Database.Database, known: readonly KnownMigration[]): void {
  quickCheck(file, db)
  const applicationId = db.pragma('application_id', { simple: true }) as number
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]
  if (applicationId !== APPLICATION_ID) checkAdoptable(file, db, applicationId, tables, known)
  const newest = known.reduce((max, migration) => Math.max(max, migration.version), 0)
  const schema = Math.max(db.pragma('user_version', { simple: true }) as number, tables.includes('schema_migrations') ? recordedVersion(db) : 0)
  if (schema > newest) throw new StartupError('STORE_ERR_DB_NEWER', [file, schema, newest])
}

function quickCheck(file: string, db: Database.Database): void {
  let verdict: string[]
  try {
    verdict = (db.pragma('quick_check(3)') as { quick_check: string }[]).map((row) => row.quick_check)
  } catch (error) {
    throw damaged(file, `quick_check failed (${(error as Error).message})`)
  }
  if (verdict.length !== 1 || verdict[0] !== 'ok') throw damaged(file, `quick_check found ${verdict.join('; ')}`)
}

/** A file without toolexec's id is adopted only when empty or when its schema_migrations records toolexec's migrations. */
function checkAdoptable(file: string, db: Database.Database, applicationId: number, tables: readonly string[], known: readonly KnownMigration[]): void {
  if (applicationId !== 0) throw foreign(file, `its application_id is 0x${applicationId.toString(16).padStart(8, '0')}, not toolexec's 0x${APPLICATION_ID.toString(16)}`)
  if (tables.length === 0) return
  if (!tables.includes('schema_migrations')) throw foreign(file, `it holds other tables (${listed(tables)})`)
  let recorded: { version: number; name: string }[]
  try {
    recorded = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[]
  } catch {
    throw foreign(file, `its schema_migrations table is not toolexec's (${listed(tables)})`)
  }
  const names = new Map(known.map((migration) => [migration.version, migration.name]))
  const ours = recorded.length > 0 && recorded.every((row) => !names.has(row.version) || names.get(row.version) === row.name) && recorded.some((row) => names.has(row.version))
  if (!ours) throw foreign(file, `its schema_migrations does not record toolexec's migrations (${listed(tables)})`)
}

function recordedVersion(db: Database.Database): number {
  try {
    return Number(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() ?? 0)
  } catch {
    return 0
  }
}

const SIDECARS = ['-wal', '-shm', '-journal']

/** A directory or a FIFO where SQLite expects its files would end the start in a raw EISDIR or a hang. */
function checkRegularFiles(file: string, stat: Stats | undefined): void {
  if (stat !== undefined && !stat.isFile()) throw foreign(file, `it is ${kindOf(stat)}, not a regular file`)
  for (const sidecar of SIDECARS.map((suffix) => `${file}${suffix}`)) {
    const found = statSync(sidecar, { throwIfNoEntry: false })
    if (found !== undefined && !found.isFile()) throw foreign(file, `${sidecar} is ${kindOf(found)}, not a regular file`)
  }
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory'
  if (stat.isFIFO()) return 'a FIFO'
  if (stat.isSocket()) return 'a socket'
  return 'a device'
}

const listed = (tables: readonly string[]): string => (tables.length > 5 ? `${tables.slice(0, 5).join(', ')}, ...` : tables.join(', '))
const damaged = (file: string, what: string): StartupError => new StartupError('STORE_ERR_DB_DAMAGED', [file, what])
const foreign = (file: string, what: string): StartupError => new StartupError('STORE_ERR_DB_FOREIGN', [file, what])
