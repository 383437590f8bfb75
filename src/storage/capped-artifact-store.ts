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

/** Bytes of artifacts already kept: of one call, and of one session. */
export interface ArtifactUsage {
  callBytes(sessionId: string, callId: string): number
  sessionBytes(sessionId: string): number
}

/** The error for `bytes` more of `request`'s call, or undefined when they fit both caps. */
export function capError(caps: ArtifactCaps, usage: ArtifactUsage, request: ArtifactOpenRequest, bytes: number): ToolexecError | undefined {
  const callTotal = usage.callBytes(request.sessionId, request.callId) + bytes
  if (callTotal > caps.perCallBytes) return new ToolexecError('ART_ERR_CALL_CAP', [callTotal, caps.perCallBytes])
  const sessionUsed = usage.sessionBytes(request.sessionId)
  if (sessionUsed + bytes > caps.perSessionBytes) return new ToolexecError('ART_ERR_SESSION_CAP', [request.sessionId, sessionUsed, bytes, caps.perSessionBytes])
  return undefined
}

function cappedStream(stream: ArtifactStream, overCap: (bytes: number) => ToolexecError | undefined): ArtifactStream {
  let failure: ToolexecError | undefined
  return {
    get bytes() {
      return stream.bytes
    },
    write: (chunk) => {
      failure ??= overCap(stream.bytes + chunk.byteLength)
      // The caller discards the stream on this error, which removes what was written.
      if (failure !== undefined) throw failure
      return stream.write(chunk)
    },
    close: async () => {
      if (failure !== undefined) {
        await stream.discard()
        throw failure
      }
      return stream.close()
    },
    discard: () => stream.discard(),
  }
}

function cappedReservation(reservation: ArtifactReservation, overCap: (bytes: number) => ToolexecError | undefined): ArtifactReservation {
  return {
    path: reservation.path,
    fd: reservation.fd,
    closeFd: () => reservation.closeFd(),
    commit: async (content) => {
      const failure = overCap(content.bytes)
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
  const overCapOf = (request: ArtifactOpenRequest) => (bytes: number) => capError(caps, usage, request, bytes)
  return {
    write: async function writeWithinCaps(request): Promise<ArtifactRef> {
      const bytes = typeof request.content === 'string' ? Buffer.byteLength(request.content) : request.content.byteLength
      const failure = capError(caps, usage, request, bytes)
      if (failure !== undefined) throw failure
      return inner.write(request)
    },
    open:
      open &&
      async function openWithinCaps(request) {
        return cappedStream(await open(request), overCapOf(request))
      },
    reserve:
      reserve &&
      async function reserveWithinCaps(request) {
        return cappedReservation(await reserve(request), overCapOf(request))
      },
  }
}
