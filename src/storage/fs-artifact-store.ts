/**
 * @module Artifacts on the local filesystem (R36, A10):
 *
 *   <root>/<sanitized session>/<sanitized callId>-tool-result-<uuid><ext>
 *
 * The root is `<dataDir>/cli/artifacts` unless set (TOOLEXEC_ARTIFACT_DIR): one shared folder
 * lets every server of a cluster read what any of them saved.
 *
 * Every write lands in the session's folder whatever its retention; the retention travels in
 * the returned reference so that a cleaner can act on it later.
 */
import { createHash, randomUUID, type Hash } from 'node:crypto'
import { closeSync, constants, createReadStream, createWriteStream, open as openFile, type WriteStream } from 'node:fs'
import { mkdir, rename, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import type { ArtifactCommit, ArtifactOpenRequest, ArtifactRef, ArtifactReservation, ArtifactStore, ArtifactStream, ArtifactWrite } from '../contracts/ports.js'
import { artifactUri } from '../contracts/artifact-uri.js'

const MAX_SEGMENT_CHARS = 120
// A streamed artifact buffers this much before write() asks the producer to wait.
const STREAM_HIGH_WATER_BYTES = 1024 * 1024
// Append: a writer given this fd for both stdout and stderr interleaves them in write order.
const RESERVED_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND
const openFd = promisify(openFile)

const EXTENSIONS: Readonly<Record<string, string>> = {
  'text/plain': '.txt',
  'text/markdown': '.md',
  'application/json': '.json',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'application/pdf': '.pdf',
}

/** The folder of every session's folder, or the data directory it is in by default (defaultArtifactDir). */
export type FsArtifactStoreOptions = { readonly root: string } | { readonly dataDir: string }

/** Where a server keeps artifact files unless told otherwise. */
export function defaultArtifactDir(dataDir: string): string {
  return join(dataDir, 'cli', 'artifacts')
}

/**
 * A10: characters outside `[a-zA-Z0-9._-]` become `_`, at most 120 characters, empty ->
 * `unknown`. A segment of only dots would climb out of the folder, so its dots become `_`.
 */
export function sanitizePathSegment(value: string): string {
  const safe = value.replace(/[^a-zA-Z0-9._-]/g, '_').slice(0, MAX_SEGMENT_CHARS)
  if (safe === '') return 'unknown'
  return /^\.+$/.test(safe) ? safe.replace(/\./g, '_') : safe
}

/** `text/plain; charset=utf-8` -> `.txt`; an unknown type gets no extension. */
export function extensionFor(mediaType: string): string {
  const essence = mediaType.split(';')[0]?.trim().toLowerCase() ?? ''
  return EXTENSIONS[essence] ?? ''
}

function toBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : content
}

/** Writes beside the target, then renames, so a reader never sees half a file. */
async function writeAtomically(path: string, data: Uint8Array): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`
  try {
    await writeFile(temp, data, { flag: 'wx' })
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

interface ArtifactLocation {
  readonly id: string
  readonly dir: string
  readonly path: string
}

function locate(request: ArtifactOpenRequest, root: string): ArtifactLocation {
  const id = `tool-result-${randomUUID()}`
  const dir = join(root, sanitizePathSegment(request.sessionId))
  const path = join(dir, `${sanitizePathSegment(request.callId)}-${id}${extensionFor(request.mediaType)}`)
  return { id, dir, path }
}

function refOf(request: ArtifactOpenRequest, where: ArtifactLocation, bytes: number, sha256: string): ArtifactRef {
  return {
    id: where.id,
    sessionId: request.sessionId,
    callId: request.callId,
    path: where.path,
    uri: artifactUri(request.sessionId, where.id),
    bytes,
    mediaType: request.mediaType,
    retention: request.retention,
    sha256,
  }
}

export class FsArtifactStore implements ArtifactStore {
  readonly root: string

  constructor(options: FsArtifactStoreOptions) {
    this.root = 'root' in options ? options.root : defaultArtifactDir(options.dataDir)
  }

  async write(request: ArtifactWrite): Promise<ArtifactRef> {
    const where = locate(request, this.root)
    const data = toBytes(request.content)
    await mkdir(where.dir, { recursive: true })
    await writeAtomically(where.path, data)
    return refOf(request, where, data.byteLength, createHash('sha256').update(data).digest('hex'))
  }

  /** Streams into a temporary file beside the target; `close` renames it into place. */
  async open(request: ArtifactOpenRequest): Promise<ArtifactStream> {
    const where = locate(request, this.root)
    await mkdir(where.dir, { recursive: true })
    const temp = `${where.path}.${randomUUID()}.tmp`
    const file = createWriteStream(temp, { flags: 'wx', highWaterMark: STREAM_HIGH_WATER_BYTES })
    try {
      await once(file, 'open')
    } catch (error) {
      file.destroy()
      throw error
    }
    return new FsArtifactStream(file, temp, (bytes, sha256) => refOf(request, where, bytes, sha256))
  }

  /** A temporary file beside the target, open for appending; `commit` renames it into place. */
  async reserve(request: ArtifactOpenRequest): Promise<ArtifactReservation> {
    const where = locate(request, this.root)
    await mkdir(where.dir, { recursive: true })
    const temp = `${where.path}.${randomUUID()}.tmp`
    const fd = await openFd(temp, RESERVED_FILE_FLAGS, 0o666)
    return new FsArtifactReservation(temp, fd, (bytes, sha256) => refOf(request, where, bytes, sha256))
  }
}

/** The first `bytes` bytes of a file (a file may be longer than what is published of it). */
function prefixOf(path: string, bytes: number): Readable {
  return bytes === 0 ? Readable.from([]) : createReadStream(path, { start: 0, end: bytes - 1, highWaterMark: STREAM_HIGH_WATER_BYTES })
}

async function sha256Of(path: string, bytes: number): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of prefixOf(path, bytes)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

class FsArtifactReservation implements ArtifactReservation {
  readonly path: string
  readonly fd: number
  readonly #finish: (bytes: number, sha256: string) => ArtifactRef
  #fdOpen = true
  #done = false

  constructor(path: string, fd: number, finish: (bytes: number, sha256: string) => ArtifactRef) {
    this.path = path
    this.fd = fd
    this.#finish = finish
  }

  closeFd(): void {
    if (!this.#fdOpen) return
    this.#fdOpen = false
    closeSync(this.fd)
  }

  async commit(content: ArtifactCommit): Promise<ArtifactRef> {
    if (this.#done) throw new Error('artifact reservation is already settled')
    this.#done = true
    this.closeFd()
    let copyPath: string | undefined
    try {
      const size = (await stat(this.path)).size
      if (size < content.bytes) throw new Error(`the reserved file holds ${size} bytes, not ${content.bytes}`)
      const ref = this.#finish(content.bytes, content.sha256 ?? (await sha256Of(this.path, content.bytes)))
      if (content.copy === true) {
        copyPath = ref.path
        await pipeline(prefixOf(this.path, content.bytes), createWriteStream(ref.path, { flags: 'wx' }))
        await rm(this.path, { force: true })
      } else {
        if (size > content.bytes) await truncate(this.path, content.bytes)
        await rename(this.path, ref.path)
      }
      return ref
    } catch (error) {
      // A copy cut short (a full disk) is removed with the rest: an artifact is whole or absent.
      await rm(this.path, { force: true })
      if (copyPath !== undefined) await rm(copyPath, { force: true })
      throw error
    }
  }

  async discard(): Promise<void> {
    if (this.#done) return
    this.#done = true
    this.closeFd()
    await rm(this.path, { force: true })
  }
}

/** Hashes while it writes, so closing a gigabyte costs no second pass over it. */
class FsArtifactStream implements ArtifactStream {
  readonly #file: WriteStream
  readonly #temp: string
  readonly #finish: (bytes: number, sha256: string) => ArtifactRef
  readonly #hash: Hash = createHash('sha256')
  #bytes = 0
  #drain: Promise<void> | undefined = undefined
  #failure: Error | undefined = undefined
  #done = false

  constructor(file: WriteStream, temp: string, finish: (bytes: number, sha256: string) => ArtifactRef) {
    this.#file = file
    this.#temp = temp
    this.#finish = finish
    file.on('error', (error) => {
      this.#failure ??= error
    })
  }

  get bytes(): number {
    return this.#bytes
  }

  write(chunk: Uint8Array): void | Promise<void> {
    if (this.#failure !== undefined) throw this.#failure
    if (this.#done) throw new Error('artifact stream is closed')
    this.#hash.update(chunk)
    this.#bytes += chunk.byteLength
    if (this.#file.write(chunk)) return
    this.#drain ??= this.#waitForDrain()
    return this.#drain
  }

  async close(): Promise<ArtifactRef> {
    if (this.#done) throw new Error('artifact stream is closed')
    this.#done = true
    try {
      if (this.#failure !== undefined) throw this.#failure
      this.#file.end()
      await once(this.#file, 'finish')
      const ref = this.#finish(this.#bytes, this.#hash.digest('hex'))
      await rename(this.#temp, ref.path)
      return ref
    } catch (error) {
      await this.#remove()
      throw error
    }
  }

  async discard(): Promise<void> {
    if (this.#done) return
    this.#done = true
    await this.#remove()
  }

  async #waitForDrain(): Promise<void> {
    try {
      await once(this.#file, 'drain')
    } finally {
      this.#drain = undefined
    }
  }

  async #remove(): Promise<void> {
    this.#file.destroy()
    await rm(this.#temp, { force: true })
  }
}
