/**
 * @module The envelope the model gets when a result was saved as an artifact (R33, R34, A2).
 */
import { formatBytesDecimal } from './bytes.js'

export const PREVIEW_CHARS = 2000

export interface Preview {
  readonly preview: string
  readonly hasMore: boolean
}

export interface PersistedOutputArgs {
  readonly content: string
  readonly originalBytes: number
  readonly persistedPath: string
}

/**
 * The first `chars` code points of `content`, cut at the last newline among them when that
 * newline lies in the second half (its code-point index is more than half of `chars`).
 * The newline itself is not part of the preview.
 */
export function previewFirstChars(content: string, chars: number = PREVIEW_CHARS): Preview {
  let count = 0
  let end = 0
  let newlineUnit = -1
  let newlineIndex = -1
  for (const codePoint of content) {
    if (count === chars) break
    if (codePoint === '\n') {
      newlineUnit = end
      newlineIndex = count
    }
    end += codePoint.length
    count += 1
  }
  if (end === content.length) return { preview: content, hasMore: false }
  const cut = newlineIndex > chars / 2 ? newlineUnit : end
  return { preview: content.slice(0, cut), hasMore: true }
}

/** R33 line by line; the preview line always names the preview's nominal size (`2 KB`). */
export function formatPersistedOutputEnvelope(args: PersistedOutputArgs): string {
  const { preview, hasMore } = previewFirstChars(args.content)
  const lines = [
    '<persisted-output>',
    `Output too large (${formatBytesDecimal(args.originalBytes)}). Full output saved to: ${args.persistedPath}`,
    '',
    `Preview (first ${formatBytesDecimal(PREVIEW_CHARS)}):`,
    preview,
  ]
  if (hasMore) lines.push('...')
  lines.push('</persisted-output>')
  return lines.join('\n')
}
