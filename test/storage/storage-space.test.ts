/** When the data directory has room for new work, and which errors mean it has none. */
import { describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { isStorageDamage, isStorageFull, StoreFullError } from '../../src/contracts/store.js'
import { MIN_FREE_BYTES, StorageSpace } from '../../src/storage/storage-space.js'
import '../../src/storage/sqlite/sqlite-errors.js'

/** An error as better-sqlite3 throws it, or as the file system does. */
const failure = (code: string | undefined): Error => (code?.startsWith('SQLITE_') === true ? new Database.SqliteError('x', code) : Object.assign(new Error('x'), { code }))

describe('StorageSpace', () => {
  it.each(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC'])('takes %s for a want of space', (code) => {
    expect(isStorageFull(failure(code))).toBe(true)
  })

  it.each(['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CORRUPT', 'EACCES', 'SQLITE_IOERR_READ', undefined])('does not take %s for one', (code) => {
    expect(isStorageFull(failure(code))).toBe(false)
    expect(isStorageFull('ENOSPC')).toBe(false)
  })

  it('takes a StoreFullError for a want of space, and only an SQLite error for one by its code', () => {
    expect(isStorageFull(new StoreFullError('no space'))).toBe(true)
    expect(isStorageFull(Object.assign(new Error('x'), { code: 'SQLITE_FULL' }))).toBe(false)
  })

  it.each(['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_NOTADB'])('takes %s for damage, and no want of space for it', (code) => {
    expect(isStorageDamage(failure(code))).toBe(true)
    expect(isStorageDamage(failure('SQLITE_FULL'))).toBe(false)
  })

  it('has no room below the free-space floor, and room again above it', () => {
    let free = MIN_FREE_BYTES - 1
    const space = new StorageSpace('/data', { freeBytes: () => free })
    expect(space.full).toBe(true)
    expect(() => space.assertRoom()).toThrow(
      expect.objectContaining({ code: 'API_ERR_STORAGE_FULL', message: 'No space left in the data directory /data: new work is refused until space is freed there' }),
    )
    free = MIN_FREE_BYTES
    space.markFull()
    expect(space.full).toBe(false)
  })

  it('after a failed write has no room until a probe finds room; translate turns a want of space into API_ERR_STORAGE_FULL', () => {
    let free = 0
    const space = new StorageSpace('/data', { freeBytes: () => free })
    const translated = space.translate(new StoreFullError('database or disk is full'))
    expect(translated).toMatchObject({ code: 'API_ERR_STORAGE_FULL', context: { dataDir: '/data' } })
    expect(space.translate(new Error('other'))).toBeUndefined()
    expect(space.full).toBe(true)
    free = Number.MAX_SAFE_INTEGER
    space.markFull()
    expect(space.full).toBe(false)
  })

  it('a directory whose free space cannot be read is not taken for a full one', () => {
    const space = new StorageSpace('/data', {
      freeBytes: () => {
        throw new Error('ENOENT')
      },
    })
    expect(space.full).toBe(false)
  })
})
