/** @module An artifact store that also records each artifact's row, so the API can serve it. */
import type { ArtifactOpenRequest, ArtifactRef, ArtifactStore, ArtifactStream, ArtifactWrite } from '../contracts/ports.js'
import type { SqliteStore } from './sqlite-store.js'

export function recordArtifacts(inner: ArtifactStore, store: SqliteStore): ArtifactStore {
  const record = (ref: ArtifactRef): ArtifactRef => {
    store.insertArtifact(ref, new Date().toISOString())
    return ref
  }
  const recorded: ArtifactStore = {
    write: async function writeAndRecord(request: ArtifactWrite): Promise<ArtifactRef> {
      return record(await inner.write(request))
    },
  }
  const open = inner.open?.bind(inner)
  if (open === undefined) return recorded
  return {
    ...recorded,
    open: async function openAndRecord(request: ArtifactOpenRequest): Promise<ArtifactStream> {
      const stream = await open(request)
      return {
        get bytes() {
          return stream.bytes
        },
        write: (chunk) => stream.write(chunk),
        close: async () => record(await stream.close()),
        discard: () => stream.discard(),
      }
    },
  }
}
