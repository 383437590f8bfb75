/**
 * @module A command's output file when the artifact store cannot reserve one: a private
 * temporary file that the command writes into all the same. Committing it copies its bytes
 * into the store's streamed artifact when the store has one, else fails with the reason.
 */
import { randomUUID } from 'node:crypto'
import { closeSync, constants, createReadStream, openSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ArtifactCommit, ArtifactOpenRequest, ArtifactRef, ArtifactReservation, ArtifactStore } from '../../contracts/ports.js'

const FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND

export const CANNOT_STREAM = 'the artifact store cannot stream output'

async function copyInto(store: ArtifactStore | undefined, request: ArtifactOpenRequest, path: string, bytes: number): Promise<ArtifactRef> {
  if (store?.open === undefined) throw new Error(CANNOT_STREAM)
  const stream = await store.open(request)
  try {
    if (bytes > 0) {
      for await (const chunk of createReadStream(path, { start: 0, end: bytes - 1 })) {
        const wait = stream.write(chunk as Buffer)
        if (wait !== undefined) await wait
      }
    }
    return await stream.close()
  } catch (error) {
    await stream.discard()
    throw error
  }
}

export class LocalReservation implements ArtifactReservation {
  readonly path: string
  readonly fd: number
  readonly #store: ArtifactStore | undefined
  readonly #request: ArtifactOpenRequest
  /** Why the store was not asked for a file of its own, when it was asked and failed. */
  readonly #reserveFailure: { readonly error: unknown } | undefined
  #fdOpen = true

  constructor(store: ArtifactStore | undefined, request: ArtifactOpenRequest, reserveError?: unknown) {
    this.path = join(tmpdir(), `toolexec-output-${randomUUID()}.tmp`)
    this.fd = openSync(this.path, FILE_FLAGS, 0o600)
    this.#store = store
    this.#request = request
    this.#reserveFailure = reserveError === undefined ? undefined : { error: reserveError }
  }

  closeFd(): void {
    if (!this.#fdOpen) return
    this.#fdOpen = false
    closeSync(this.fd)
  }

  async commit(content: ArtifactCommit): Promise<ArtifactRef> {
    this.closeFd()
    try {
      if (this.#reserveFailure !== undefined) throw this.#reserveFailure.error
      return await copyInto(this.#store, this.#request, this.path, content.bytes)
    } finally {
      await rm(this.path, { force: true })
    }
  }

  async discard(): Promise<void> {
    this.closeFd()
    await rm(this.path, { force: true })
  }
}

/** A file for a command's output: the store's own when it can reserve one, else a private one. */
export async function reserveOutputFile(store: ArtifactStore | undefined, request: ArtifactOpenRequest): Promise<ArtifactReservation> {
  if (store?.reserve === undefined) return new LocalReservation(store, request)
  try {
    return await store.reserve(request)
  } catch (error) {
    return new LocalReservation(undefined, request, error)
  }
}
