/**
 * @module Caps on what artifacts may hold: per call and per session. An artifact that would
 * pass either cap is not kept (its file is removed) and its write fails with a coded error
 * that says which cap and how large; the result then says the full output was not saved.
 */
import type { ArtifactOpenRequest, ArtifactRef, ArtifactReservation, ArtifactStore, ArtifactStream } from '../contracts/ports.js'
import { ToolexecError } from '../contracts/errors.js'

export const DEFAULT_ARTIFACT_CALL_CAP_BYTES = 1024 ** 3
export const DEFAULT_ARTIFACT_SESSION_CAP_BYTES = 4 * 1024 ** 3

export interface ArtifactCaps {
  readonly perCallBytes: number
  readonly perSessionBytes: number
}

/** Bytes of artifacts already kept: of one call, and of one session (read from the store). */
export interface ArtifactUsage {
  callBytes(sessionId: string, callId: string): Promise<number>
  sessionBytes(sessionId: string): Promise<number>
}

/** What the call and its session already kept, read once; a stream checks each chunk against it without a read. */
interface UsedBytes {
  readonly call: number
  readonly session: number
}

async function usedBytes(usage: ArtifactUsage, request: ArtifactOpenRequest): Promise<UsedBytes> {
  const [call, session] = await Promise.all([usage.callBytes(request.sessionId, request.callId), usage.sessionBytes(request.sessionId)])
  return { call, session }
}

/** The error for `bytes` more of `request`'s call, or undefined when they fit both caps. */
function overCap(caps: ArtifactCaps, used: UsedBytes, request: ArtifactOpenRequest, bytes: number): ToolexecError | undefined {
  const callTotal = used.call + bytes
  if (callTotal > caps.perCallBytes) return new ToolexecError('ART_ERR_CALL_CAP', [callTotal, caps.perCallBytes])
  if (used.session + bytes > caps.perSessionBytes) return new ToolexecError('ART_ERR_SESSION_CAP', [request.sessionId, used.session, bytes, caps.perSessionBytes])
  return undefined
}

/** The error for `bytes` more of `request`'s call, by what the store holds now, or undefined when they fit both caps. */
export async function capError(caps: ArtifactCaps, usage: ArtifactUsage, request: ArtifactOpenRequest, bytes: number): Promise<ToolexecError | undefined> {
  return overCap(caps, await usedBytes(usage, request), request, bytes)
}

/**
 * Each chunk is checked against the usage read when the stream opened; the close checks the
 * whole again against what the store holds then, which counts artifacts kept meanwhile.
 */
function cappedStream(stream: ArtifactStream, overCapAsOpened: (bytes: number) => ToolexecError | undefined, overCapAsStored: (bytes: number) => Promise<ToolexecError | undefined>): ArtifactStream {
  let failure: ToolexecError | undefined
  return {
    get bytes() {
      return stream.bytes
    },
    write: (chunk) => {
      failure ??= overCapAsOpened(stream.bytes + chunk.byteLength)
      // The caller discards the stream on this error, which removes what was written.
      if (failure !== undefined) throw failure
      return stream.write(chunk)
    },
    close: async () => {
      failure ??= await overCapAsStored(stream.bytes)
      if (failure !== undefined) {
        await stream.discard()
        throw failure
      }
      return stream.close()
    },
    discard: () => stream.discard(),
  }
}

function cappedReservation(reservation: ArtifactReservation, overCapAsStored: (bytes: number) => Promise<ToolexecError | undefined>): ArtifactReservation {
  return {
    path: reservation.path,
    fd: reservation.fd,
    closeFd: () => reservation.closeFd(),
    commit: async (content) => {
      const failure = await overCapAsStored(content.bytes)
      if (failure === undefined) return reservation.commit(content)
      await reservation.discard()
      throw failure
    },
    discard: () => reservation.discard(),
  }
}

export function capArtifacts(inner: ArtifactStore, caps: ArtifactCaps, usage: ArtifactUsage): ArtifactStore {
  const open = inner.open?.bind(inner)
  const reserve = inner.reserve?.bind(inner)
  const overCapAsStoredOf = (request: ArtifactOpenRequest) => (bytes: number) => capError(caps, usage, request, bytes)
  return {
    write: async function writeWithinCaps(request): Promise<ArtifactRef> {
      const bytes = typeof request.content === 'string' ? Buffer.byteLength(request.content) : request.content.byteLength
      const failure = await capError(caps, usage, request, bytes)
      if (failure !== undefined) throw failure
      return inner.write(request)
    },
    open:
      open &&
      async function openWithinCaps(request) {
        const used = await usedBytes(usage, request)
        return cappedStream(await open(request), (bytes) => overCap(caps, used, request, bytes), overCapAsStoredOf(request))
      },
    reserve:
      reserve &&
      async function reserveWithinCaps(request) {
        return cappedReservation(await reserve(request), overCapAsStoredOf(request))
      },
  }
}
