/**
 * @module What is kept of a Write or Edit once the call is over. The texts before and after
 * serve the file_diff display and the PostToolUse hooks while the call runs; stored in every
 * record, event and reply they would cost several copies of the file per call. Their sizes and
 * hashes still tell what changed and let a client check a file against the call.
 */
import type { FileChangeOutput } from './file-change.js'
import { sha256Of } from './file-state.js'

export interface RecordedFileChange {
  readonly type: FileChangeOutput['type']
  readonly filePath: string
  readonly replacements?: number
  /** UTF-8 bytes of the text before (without a byte order mark); null when the file was created. */
  readonly oldBytes: number | null
  readonly newBytes: number
  /** Hex SHA-256 of the UTF-8 text before; null when the file was created. */
  readonly oldSha256: string | null
  readonly newSha256: string
}

/** @example recordFileChange({ type: 'create', filePath: 'a.txt', oldContent: null, newContent: 'x' }) */
export function recordFileChange(output: FileChangeOutput): RecordedFileChange {
  const before = output.oldContent === null ? null : Buffer.from(output.oldContent, 'utf8')
  const after = Buffer.from(output.newContent, 'utf8')
  return {
    type: output.type,
    filePath: output.filePath,
    ...(output.replacements === undefined ? null : { replacements: output.replacements }),
    oldBytes: before === null ? null : before.byteLength,
    newBytes: after.byteLength,
    oldSha256: before === null ? null : sha256Of(before),
    newSha256: sha256Of(after),
  }
}
