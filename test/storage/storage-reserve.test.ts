/**
 * The space reserve: a write a full disk must not stop gets its space and runs once more;
 * the reserve is made again once the disk has room for it and new work, and never after a stop.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { StoreFullError } from '../../src/contracts/store.js'
import { RESERVE_FILE } from '../../src/storage/storage-reserve.js'
import { MIN_FREE_BYTES, StorageSpace } from '../../src/storage/storage-space.js'

const BYTES = 64 * 1024

function spaceError(): Error {
  return new StoreFullError('database or disk is full')
}

describe('the space reserve', () => {
  let dataDir: string
  let free: number
  let space: StorageSpace
  const reserveFile = (): string => path.join(dataDir, RESERVE_FILE)

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-reserve-'))
    free = 0
    space = new StorageSpace(dataDir, { reserveBytes: BYTES, freeBytes: () => free })
    expect(space.reserve.make()).toBe(true)
    expect(statSync(reserveFile()).size).toBe(BYTES)
  })

  afterEach(() => {
    vi.useRealTimers()
    space.reserve.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('gives its space to a write that failed for want of it, which runs once more', async () => {
    let attempts = 0
    const value = await space.writeWithReserve(() => {
      attempts++
      return attempts === 1 ? Promise.reject(spaceError()) : Promise.resolve('deleted')
    })
    expect(value).toBe('deleted')
    expect(attempts).toBe(2)
    expect(existsSync(reserveFile())).toBe(false)
    expect(space.full).toBe(true)
  })

  it('a write that still finds no space fails with its error; a spent reserve is not spent twice', async () => {
    let attempts = 0
    const failing = (): Promise<never> => {
      attempts++
      return Promise.reject(spaceError())
    }
    await expect(space.writeWithReserve(failing)).rejects.toThrow('database or disk is full')
    expect(attempts).toBe(2)
    await expect(space.writeWithReserve(failing)).rejects.toThrow('database or disk is full')
    expect(attempts).toBe(3)
  })

  it('another error is not retried and keeps the reserve', async () => {
    let attempts = 0
    await expect(
      space.writeWithReserve(() => {
        attempts++
        return Promise.reject(Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT' }))
      }),
    ).rejects.toThrow('constraint')
    expect(attempts).toBe(1)
    expect(statSync(reserveFile()).size).toBe(BYTES)
  })

  it('is made again once the disk has room for it and for new work, not before', async () => {
    vi.useFakeTimers()
    await spendReserve(space)
    free = MIN_FREE_BYTES + BYTES - 1
    await vi.advanceTimersByTimeAsync(5_000)
    expect(existsSync(reserveFile())).toBe(false)
    free = MIN_FREE_BYTES + BYTES
    await vi.advanceTimersByTimeAsync(5_000)
    expect(statSync(reserveFile()).size).toBe(BYTES)
  })

  it('is not made again after the server stopped', async () => {
    vi.useFakeTimers()
    await spendReserve(space)
    space.reserve.close()
    free = Number.MAX_SAFE_INTEGER
    await vi.advanceTimersByTimeAsync(5_000)
    expect(existsSync(reserveFile())).toBe(false)
    expect(await space.writeWithReserve(() => Promise.resolve('ok'))).toBe('ok')
  })

  it('released at a stop, it stays released', async () => {
    vi.useFakeTimers()
    expect(space.reserve.release()).toBe(true)
    free = Number.MAX_SAFE_INTEGER
    await vi.advanceTimersByTimeAsync(5_000)
    expect(existsSync(reserveFile())).toBe(false)
    expect(space.reserve.release()).toBe(false)
  })
})

async function spendReserve(space: StorageSpace): Promise<void> {
  let first = true
  await space.writeWithReserve(() => {
    if (!first) return Promise.resolve()
    first = false
    return Promise.reject(spaceError())
  })
}
