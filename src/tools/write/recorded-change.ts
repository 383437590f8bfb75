/**
 * @module What is kept of a Write or Edit once the call is over. The texts before and after
 * serve the file_diff display and the PostToolUse hooks while the call runs; stored in every
 * record, event and reply they would cost several copies of the file per call. Their sizes and
 * hashes still tell what changed and let a client check a file against the call.
 */
import { createHash } from 'node:crypto'
import type { FileChangeOutput } from './file-change.js'

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
  return {
    type: output.type,
    filePath: output.filePath,
    ...(output.replacements === undefined ? null : { replacements: output.replacements }),
    oldBytes: output.oldContent === null ? null : Buffer.byteLength(output.oldContent, 'utf8'),
    newBytes: Buffer.byteLength(output.newContent, 'utf8'),
    oldSha256: output.oldContent === null ? null : sha256OfText(output.oldContent),
    newSha256: sha256OfText(output.newContent),
  }
}

function sha256OfText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}
