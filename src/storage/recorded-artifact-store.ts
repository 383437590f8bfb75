/** @module An artifact store that also records each artifact's row, so the API can serve it. */
import { rm } from 'node:fs/promises'
import type { ArtifactRef, ArtifactReservation, ArtifactStore, ArtifactStream } from '../contracts/ports.js'
import type { Store } from '../contracts/store.js'

type Record = (ref: ArtifactRef) => Promise<ArtifactRef>

function recordedStream(stream: ArtifactStream, record: Record): ArtifactStream {
  return {
    get bytes() {
      return stream.bytes
    },
    write: (chunk) => stream.write(chunk),
    close: async () => record(await stream.close()),
    discard: () => stream.discard(),
  }
}

function recordedReservation(reservation: ArtifactReservation, record: Record): ArtifactReservation {
  return {
    path: reservation.path,
    fd: reservation.fd,
    closeFd: () => reservation.closeFd(),
    commit: async (content) => record(await reservation.commit(content)),
    discard: () => reservation.discard(),
  }
}

export function recordArtifacts(inner: ArtifactStore, store: Pick<Store, 'commit'>): ArtifactStore {
  const record: Record = async (ref) => {
    try {
      await store.commit((unit) => unit.artifacts.insert(ref, new Date().toISOString()))
    } catch (error) {
      // No row, no artifact: a file nobody can serve or delete is not left behind (a full disk).
      await rm(ref.path, { force: true })
      throw error
    }
    return ref
  }
  const open = inner.open?.bind(inner)
  const reserve = inner.reserve?.bind(inner)
  return {
    write: async function writeAndRecord(request) {
      return record(await inner.write(request))
    },
    open:
      open &&
      async function openAndRecord(request) {
        return recordedStream(await open(request), record)
      },
    reserve:
      reserve &&
      async function reserveAndRecord(request) {
        return recordedReservation(await reserve(request), record)
      },
  }
}
