import { createHash } from 'node:crypto'
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs'
import { readdir, readFile, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { artifactUri } from '../../src/contracts/artifact-uri.js'
import { extensionFor, FsArtifactStore, sanitizePathSegment } from '../../src/storage/fs-artifact-store.js'
import { tempDir } from '../support/temp-dirs.js'

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

let dataDir: string
let store: FsArtifactStore

beforeEach(async () => {
  dataDir = await tempDir('artifacts')
  store = new FsArtifactStore({ dataDir })
})

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

describe('FsArtifactStore (R36, A10)', () => {
  it('R36 writes <dataDir>/cli/artifacts/<session>/<callId>-tool-result-<uuid>.txt with the full bytes', async () => {
    const content = 'héllo 😀\n'.repeat(1000)
    const ref = await store.write({ sessionId: 'sess-1', callId: 'call_1', content, mediaType: 'text/plain', retention: 'session' })

    expect(dirname(ref.path)).toBe(join(dataDir, 'cli', 'artifacts', 'sess-1'))
    expect(basename(ref.path)).toMatch(new RegExp(`^call_1-tool-result-${UUID}\\.txt$`))
    expect(ref.id).toMatch(new RegExp(`^tool-result-${UUID}$`))
    expect(basename(ref.path)).toBe(`call_1-${ref.id}.txt`)
    expect(ref.uri).toBe(`toolexec-artifact://sess-1/${ref.id}`)
    const written = await readFile(ref.path)
    expect(written.toString('utf8')).toBe(content)
    expect(ref.bytes).toBe(Buffer.byteLength(content))
    expect(ref.sha256).toBe(createHash('sha256').update(written).digest('hex'))
    expect(ref).toMatchObject({ sessionId: 'sess-1', callId: 'call_1', mediaType: 'text/plain', retention: 'session' })
  })

  it('R36 writes binary content byte for byte and leaves no temporary file behind', async () => {
    const bytes = new Uint8Array([0, 255, 137, 80, 78, 71, 13, 10])
    const ref = await store.write({ sessionId: 's', callId: 'c', content: bytes, mediaType: 'image/png', retention: 'temporary' })
    expect(new Uint8Array(await readFile(ref.path))).toEqual(bytes)
    expect(ref.bytes).toBe(8)
    expect(await readdir(dirname(ref.path))).toEqual([basename(ref.path)])
  })

  it.each(['session', 'project', 'temporary'] as const)('R36 carries retention %s in the reference and writes in the session folder', async (retention) => {
    const ref = await store.write({ sessionId: 's', callId: 'c', content: 'x', mediaType: 'text/plain', retention })
    expect(ref.retention).toBe(retention)
    expect(dirname(ref.path)).toBe(join(dataDir, 'cli', 'artifacts', 's'))
  })

  it('R36 gives two writes of one call distinct files', async () => {
    const first = await store.write({ sessionId: 's', callId: 'c', content: '1', mediaType: 'text/plain', retention: 'session' })
    const second = await store.write({ sessionId: 's', callId: 'c', content: '2', mediaType: 'text/plain', retention: 'session' })
    expect(first.path).not.toBe(second.path)
    expect(await readFile(first.path, 'utf8')).toBe('1')
    expect(await readFile(second.path, 'utf8')).toBe('2')
  })

  it('R36 sanitizes the session and call segments but encodes the raw session in the URI', async () => {
    const ref = await store.write({ sessionId: 'user/42 ü', callId: 'call:9?', content: 'x', mediaType: 'application/json', retention: 'session' })
    expect(dirname(ref.path)).toBe(join(dataDir, 'cli', 'artifacts', 'user_42__'))
    expect(basename(ref.path)).toBe(`call_9_-${ref.id}.json`)
    expect(ref.uri).toBe(`toolexec-artifact://user%2F42%20%C3%BC/${ref.id}`)
  })

  it('R36 keeps a path-like session inside the artifacts root', async () => {
    const ref = await store.write({ sessionId: '..', callId: '..', content: 'x', mediaType: 'text/plain', retention: 'session' })
    expect(dirname(ref.path)).toBe(join(dataDir, 'cli', 'artifacts', '__'))
  })

  it('R36 caps a long session segment at 120 characters', async () => {
    const ref = await store.write({ sessionId: 's'.repeat(300), callId: 'c'.repeat(300), content: 'x', mediaType: 'text/plain', retention: 'session' })
    expect(basename(dirname(ref.path))).toBe('s'.repeat(120))
    expect(basename(ref.path)).toBe(`${'c'.repeat(120)}-${ref.id}.txt`)
  })

  it.each([
    ['abc-DEF_1.2', 'abc-DEF_1.2'],
    ['a/b c', 'a_b_c'],
    ['', 'unknown'],
    ['日本', '__'],
    ['😀', '__'],
    ['.', '_'],
    ['..', '__'],
    ['.hidden', '.hidden'],
    ['x'.repeat(121), 'x'.repeat(120)],
    ['/'.repeat(130), '_'.repeat(120)],
  ])('R36 sanitizes %j to %j', (raw, safe) => {
    expect(sanitizePathSegment(raw)).toBe(safe)
  })

  it.each([
    ['text/plain', '.txt'],
    ['text/plain; charset=utf-8', '.txt'],
    ['text/markdown', '.md'],
    ['application/json', '.json'],
    ['image/png', '.png'],
    ['IMAGE/JPEG', '.jpg'],
    ['image/gif', '.gif'],
    ['image/webp', '.webp'],
    ['application/pdf', '.pdf'],
    ['video/mp4', ''],
    ['application/octet-stream', ''],
  ])('R36 names a %s artifact with extension %j', (mediaType, ext) => {
    expect(extensionFor(mediaType)).toBe(ext)
  })

  it.each([
    ['s1', 'tool-result-1', 'toolexec-artifact://s1/tool-result-1'],
    ['a b/c', 'tool-result-2', 'toolexec-artifact://a%20b%2Fc/tool-result-2'],
    ['ü#?', 'id&=', 'toolexec-artifact://%C3%BC%23%3F/id%26%3D'],
  ])('R36 encodes session %j and id %j in the URI', (session, id, uri) => {
    expect(artifactUri(session, id)).toBe(uri)
  })
})

describe('FsArtifactStore reservations: a file another writer fills (R36)', () => {
  const request = { sessionId: 's1', callId: 'c/1', mediaType: 'text/plain', retention: 'session' } as const
  const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex')

  it('R36 reserves a hidden temporary file beside the target and renames it into place on commit, with its sha256', async () => {
    const reservation = await store.reserve(request)
    const folder = join(dataDir, 'cli', 'artifacts', 's1')
    expect(dirname(reservation.path)).toBe(folder)
    expect(reservation.path.endsWith('.tmp')).toBe(true)
    writeSync(reservation.fd, 'out ')
    writeSync(reservation.fd, 'err\n')
    const ref = await reservation.commit({ bytes: 8 })
    expect(ref).toMatchObject({ sessionId: 's1', callId: 'c/1', bytes: 8, sha256: sha256('out err\n') })
    expect(ref.path).toBe(join(folder, `c_1-${ref.id}.txt`))
    expect(await readFile(ref.path, 'utf8')).toBe('out err\n')
    expect(await readdir(folder)).toEqual([basename(ref.path)])
  })

  it('R36 opens the reserved file for appending, and closes it once however often it is asked', async () => {
    const reservation = await store.reserve(request)
    writeSync(reservation.fd, 'abc', 0)
    writeSync(reservation.fd, 'def', 0)
    expect(fstatSync(reservation.fd).size).toBe(6)
    reservation.closeFd()
    reservation.closeFd()
    expect(() => fstatSync(reservation.fd)).toThrow()
    expect(await readFile((await reservation.commit({ bytes: 6 })).path, 'utf8')).toBe('abcdef')
  })

  it('R36 publishes only the committed bytes, with the sha256 the writer gives', async () => {
    const reservation = await store.reserve(request)
    writeSync(reservation.fd, 'kept|late')
    const ref = await reservation.commit({ bytes: 5, sha256: sha256('kept|') })
    expect(ref).toMatchObject({ bytes: 5, sha256: sha256('kept|') })
    expect(await readFile(ref.path, 'utf8')).toBe('kept|')
  })

  it('R36 publishes a copy when a writer may still append, so later writes do not reach the artifact', async () => {
    const reservation = await store.reserve(request)
    const otherWriter = openSync(reservation.path, 'a')
    writeSync(otherWriter, 'before\n')
    const ref = await reservation.commit({ bytes: 7, copy: true })
    writeSync(otherWriter, 'after\n')
    closeSync(otherWriter)
    expect(await readFile(ref.path, 'utf8')).toBe('before\n')
    expect(ref.sha256).toBe(sha256('before\n'))
    expect(await readdir(dirname(ref.path))).toEqual([basename(ref.path)])
  })

  it('R36 refuses to commit more bytes than the file holds, and leaves nothing behind', async () => {
    const reservation = await store.reserve(request)
    writeSync(reservation.fd, 'short')
    await expect(reservation.commit({ bytes: 100 })).rejects.toThrow('holds 5 bytes')
    expect(await readdir(join(dataDir, 'cli', 'artifacts', 's1'))).toEqual([])
  })

  it('R36 leaves nothing behind when a reservation is discarded', async () => {
    const reservation = await store.reserve(request)
    writeSync(reservation.fd, 'partial')
    await reservation.discard()
    await reservation.discard()
    expect(await readdir(join(dataDir, 'cli', 'artifacts', 's1'))).toEqual([])
  })
})
