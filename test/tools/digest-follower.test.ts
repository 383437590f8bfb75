/**
 * The digest follower behind a large Bash output: it hashes a file while it grows, and must
 * never vouch for bytes the file no longer holds. Real files and real worker threads.
 */
import { createHash, randomBytes } from 'node:crypto'
import { appendFileSync, closeSync, openSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DigestFollower } from '../../src/tools/bash/digest-follower.js'
import { digestAfterFollowing } from '../../src/tools/bash/output-digest.js'
import { eventually } from '../support/processes.js'
import { tempDirSync } from '../support/temp-dirs.js'

const MIB = 1024 * 1024

let dir: string
let file: string
let followers: DigestFollower[]

beforeEach(() => {
  dir = tempDirSync('digest')
  file = join(dir, 'output.txt')
  writeFileSync(file, '')
  followers = []
})

afterEach(() => {
  for (const follower of followers) follower.stop()
  rmSync(dir, { recursive: true, force: true })
})

const sha256 = (...parts: Buffer[]): string => createHash('sha256').update(Buffer.concat(parts)).digest('hex')

function follow(): DigestFollower {
  const follower = new DigestFollower(file)
  followers.push(follower)
  return follower
}

/** Until the end is known the follower reads whole MiB only: it has read every whole MiB of `bytes`. */
async function caughtUp(follower: DigestFollower, bytes: number): Promise<void> {
  expect(await eventually(() => follower.followed === bytes - (bytes % MIB), 5000)).toBe(true)
}

describe('R36 the sha256 of a Bash output hashed while the command writes it', () => {
  it('hashes what was appended after it had caught up, up to exactly the size it is given', async () => {
    const first = randomBytes(3 * MIB + 5)
    const later = randomBytes(2 * MIB + 17)
    appendFileSync(file, first)
    const follower = follow()
    await caughtUp(follower, first.length)
    appendFileSync(file, later)
    expect(await follower.digestOf(first.length + later.length)).toBe(sha256(first, later))
  })

  it('gives an empty file its digest, and a file it never saw grow the digest of all of it', async () => {
    const follower = follow()
    expect(await follower.digestOf(0)).toBe(sha256())
    const whole = randomBytes(MIB + 1)
    writeFileSync(file, whole)
    expect(await follow().digestOf(whole.length)).toBe(sha256(whole))
  })

  it('gives up when the file was truncated and written again past what it had read', async () => {
    const before = Buffer.alloc(2 * MIB, 'a')
    const after = Buffer.alloc(3 * MIB, 'b')
    appendFileSync(file, before)
    const follower = follow()
    await caughtUp(follower, before.length)
    // What `cmd > /dev/stdout` does to an output file: O_TRUNC, then the new bytes.
    writeFileSync(file, after)
    expect(await follower.digestOf(after.length)).toBeUndefined()
  })

  it('gives up when bytes it read were overwritten in place, the size unchanged', async () => {
    const whole = Buffer.alloc(3 * MIB, 'a')
    appendFileSync(file, whole)
    const follower = follow()
    await caughtUp(follower, whole.length)
    const fd = openSync(file, 'r+')
    writeSync(fd, 'X', MIB)
    closeSync(fd)
    expect(await follower.digestOf(whole.length)).toBeUndefined()
  })

  it('gives up when the file ends shorter than the size it is given', async () => {
    appendFileSync(file, randomBytes(2 * MIB))
    const follower = follow()
    await caughtUp(follower, 2 * MIB)
    truncateSync(file, MIB)
    expect(await follower.digestOf(2 * MIB)).toBeUndefined()
  })

  it('hashes the file whole after a follower that gave up, and only the bytes it is given', async () => {
    const before = randomBytes(9 * MIB)
    const after = randomBytes(10 * MIB)
    appendFileSync(file, before)
    const follower = follow()
    await caughtUp(follower, before.length)
    writeFileSync(file, after)
    appendFileSync(file, 'appended later, not published')
    expect(await digestAfterFollowing(follower, file, after.length)).toBe(sha256(after))
  })

  it('ends by itself once its file is removed, though the bytes are still readable through its descriptor', async () => {
    appendFileSync(file, randomBytes(2 * MIB))
    const follower = follow()
    await caughtUp(follower, 2 * MIB)
    rmSync(file)
    expect(await follower.digestOf(2 * MIB)).toBeUndefined()
  })

  it('ends its worker on stop, and then vouches for nothing', async () => {
    appendFileSync(file, randomBytes(MIB))
    const follower = follow()
    follower.stop()
    expect(await follower.digestOf(MIB)).toBeUndefined()
  })
})
