/** @module An artifact store that also records each artifact's row, so the API can serve it. */
import type { ArtifactRef, ArtifactStore, ArtifactWrite } from '../contracts/ports.js'
import type { SqliteStore } from './sqlite-store.js'

export function recordArtifacts(inner: ArtifactStore, store: SqliteStore): ArtifactStore {
  return {
    write: async function writeAndRecord(request: ArtifactWrite): Promise<ArtifactRef> {
      const ref = await inner.write(request)
      store.insertArtifact(ref, new Date().toISOString())
      return ref
    },
  }
}
