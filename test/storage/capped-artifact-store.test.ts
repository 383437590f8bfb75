/** Artifact caps per call and per session, over the real file store: what passes a cap is not kept, and says which. */
import { existsSync, readdirSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ArtifactRef, ArtifactStore } from '../../src/contracts/ports.js'
import { capArtifacts, type ArtifactUsage } from '../../src/storage/capped-artifact-store.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { tempDir } from '../support/temp-dirs.js'

let dataDir: string
let files: FsArtifactStore
let kept: ArtifactRef[]
let store: ArtifactStore

const bytesOf = (refs: ArtifactRef[]): number => refs.reduce((sum, ref) => sum + ref.bytes, 0)
const usage: ArtifactUsage = {
  callBytes: (sessionId, callId) => Promise.resolve(bytesOf(kept.filter((ref) => ref.sessionId === sessionId && ref.callId === callId))),
  sessionBytes: (sessionId) => Promise.resolve(bytesOf(kept.filter((ref) => ref.sessionId === sessionId))),
}
const request = (callId: string, sessionId = 's1') => ({ sessionId, callId, mediaType: 'text/plain', retention: 'session' as const })

function filesOnDisk(): string[] {
  return existsSync(files.root)
    ? readdirSync(files.root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
    : []
}

beforeEach(async () => {
  dataDir = await tempDir('caps')
  files = new FsArtifactStore({ dataDir })
  kept = []
  const capped = capArtifacts(files, { perCallBytes: 1_000, perSessionBytes: 2_500 }, usage)
  store = {
    write: async (req) => {
      const ref = await capped.write(req)
      kept.push(ref)
      return ref
    },
    open: capped.open?.bind(capped),
    reserve: capped.reserve?.bind(capped),
  }
})

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

describe('artifact caps', () => {
  it('keeps a write within both caps, and refuses one over the per-call cap with ART_ERR_CALL_CAP, writing nothing', async () => {
    await store.write({ ...request('c1'), content: 'a'.repeat(600) })
    await expect(store.write({ ...request('c1'), content: 'b'.repeat(401) })).rejects.toMatchObject({
      code: 'ART_ERR_CALL_CAP',
      message: 'Not saved: 1001 bytes is over the per-call artifact cap of 1000 bytes (TOOLEXEC_ARTIFACT_CALL_CAP_BYTES)',
    })
    expect(filesOnDisk()).toHaveLength(1)
  })

  it('refuses a write that would pass the per-session cap with ART_ERR_SESSION_CAP; another session is not counted', async () => {
    for (const callId of ['c1', 'c2']) await store.write({ ...request(callId), content: 'a'.repeat(1_000) })
    await expect(store.write({ ...request('c3'), content: 'a'.repeat(501) })).rejects.toMatchObject({
      code: 'ART_ERR_SESSION_CAP',
      message: 'Not saved: session s1 already has 2000 bytes of artifacts, and 501 more would pass the per-session cap of 2500 bytes (TOOLEXEC_ARTIFACT_SESSION_CAP_BYTES)',
    })
    await store.write({ ...request('c3', 's2'), content: 'a'.repeat(1_000) })
  })

  it('a stream stops at the cap, and discarding it leaves no file', async () => {
    const stream = await store.open?.(request('c1'))
    if (stream === undefined) throw new Error('the store streams')
    await stream.write(Buffer.alloc(900))
    expect(() => stream.write(Buffer.alloc(200))).toThrow(expect.objectContaining({ code: 'ART_ERR_CALL_CAP' }))
    await expect(stream.close()).rejects.toMatchObject({ code: 'ART_ERR_CALL_CAP' })
    expect(filesOnDisk()).toEqual([])
  })

  it('a reserved file over the cap is removed at commit instead of published', async () => {
    const reservation = await store.reserve?.(request('c1'))
    if (reservation === undefined) throw new Error('the store reserves')
    const { writeSync } = await import('node:fs')
    writeSync(reservation.fd, Buffer.alloc(1_500))
    await expect(reservation.commit({ bytes: 1_500 })).rejects.toMatchObject({ code: 'ART_ERR_CALL_CAP' })
    expect(filesOnDisk()).toEqual([])
  })

  it('a reserved file within the cap is published', async () => {
    const reservation = await store.reserve?.(request('c1'))
    if (reservation === undefined) throw new Error('the store reserves')
    const { writeSync } = await import('node:fs')
    writeSync(reservation.fd, Buffer.alloc(700))
    const ref = await reservation.commit({ bytes: 700 })
    expect(ref.bytes).toBe(700)
    expect(filesOnDisk()).toHaveLength(1)
  })
})
