/**
 * @module Artifacts on the local filesystem (R36, A10):
 *
 *   <dataDir>/cli/artifacts/<sanitized session>/<sanitized callId>-tool-result-<uuid><ext>
 *
 * Every write lands in the session's folder whatever its retention; the retention travels in
 * the returned reference so that a cleaner can act on it later.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ArtifactRef, ArtifactStore, ArtifactWrite } from '../contracts/ports.js'

export const ARTIFACT_URI_SCHEME = 'toolexec-artifact:'
const MAX_SEGMENT_CHARS = 120

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

export interface FsArtifactStoreOptions {
  readonly dataDir: string
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

export function artifactUri(sessionId: string, id: string): string {
  return `${ARTIFACT_URI_SCHEME}//${encodeURIComponent(sessionId)}/${encodeURIComponent(id)}`
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

export class FsArtifactStore implements ArtifactStore {
  readonly root: string

  constructor(options: FsArtifactStoreOptions) {
    this.root = join(options.dataDir, 'cli', 'artifacts')
  }

  async write(request: ArtifactWrite): Promise<ArtifactRef> {
    const id = `tool-result-${randomUUID()}`
    const dir = join(this.root, sanitizePathSegment(request.sessionId))
    const path = join(dir, `${sanitizePathSegment(request.callId)}-${id}${extensionFor(request.mediaType)}`)
    const data = toBytes(request.content)
    await mkdir(dir, { recursive: true })
    await writeAtomically(path, data)
    return {
      id,
      sessionId: request.sessionId,
      callId: request.callId,
      path,
      uri: artifactUri(request.sessionId, id),
      bytes: data.byteLength,
      mediaType: request.mediaType,
      retention: request.retention,
      sha256: createHash('sha256').update(data).digest('hex'),
    }
  }
}
