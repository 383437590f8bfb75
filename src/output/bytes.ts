/**
 * @module UTF-8 byte measures and cuts. Text is measured in bytes, and a cut never splits a
 * code point: it keeps whole code points from the head or from the tail.
 */

export type CutDirection = 'head' | 'tail'

/** Bytes of `text` encoded as UTF-8 (a lone surrogate counts as U+FFFD: 3 bytes). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff
}

function unitBytes(unit: number): number {
  if (unit < 0x80) return 1
  if (unit < 0x800) return 2
  return 3
}

/** Longest prefix of `text` that fits in `maxBytes`; the walk is bounded by the budget, not the text. */
export function cutHeadToBytes(text: string, maxBytes: number): string {
  if (utf8ByteLength(text) <= maxBytes) return text
  let used = 0
  let end = 0
  while (end < text.length) {
    const unit = text.charCodeAt(end)
    const pair = isHighSurrogate(unit) && end + 1 < text.length && isLowSurrogate(text.charCodeAt(end + 1))
    const size = pair ? 4 : unitBytes(unit)
    if (used + size > maxBytes) break
    used += size
    end += pair ? 2 : 1
  }
  return text.slice(0, end)
}

/** Longest suffix of `text` that fits in `maxBytes`. */
export function cutTailToBytes(text: string, maxBytes: number): string {
  if (utf8ByteLength(text) <= maxBytes) return text
  let used = 0
  let start = text.length
  while (start > 0) {
    const unit = text.charCodeAt(start - 1)
    const pair = isLowSurrogate(unit) && start - 2 >= 0 && isHighSurrogate(text.charCodeAt(start - 2))
    const size = pair ? 4 : unitBytes(unit)
    if (used + size > maxBytes) break
    used += size
    start -= pair ? 2 : 1
  }
  return text.slice(start)
}

export function cutToBytes(text: string, maxBytes: number, direction: CutDirection): string {
  return direction === 'head' ? cutHeadToBytes(text, maxBytes) : cutTailToBytes(text, maxBytes)
}

const DECIMAL_UNITS = [
  { size: 1e3, label: 'KB' },
  { size: 1e6, label: 'MB' },
  { size: 1e9, label: 'GB' },
] as const

/**
 * Sizes of the generic envelope (A2): `999 B`, `2 KB`, `3 MB`, `4 GB`, rounded to a whole unit.
 * The next unit is taken when rounding would print 1000 (999999 -> `1 MB`, not `1000 KB`).
 */
export function formatBytesDecimal(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  for (const unit of DECIMAL_UNITS) {
    const rounded = Math.round(bytes / unit.size)
    if (rounded < 1000 || unit.label === 'GB') return `${rounded} ${unit.label}`
  }
  return `${bytes} B`
}

function oneDecimal(value: number): string {
  return value.toFixed(1).replace(/\.0$/, '')
}

/** Sizes as Bash and TaskOutput write them (A2): `0 bytes`, `512 bytes`, `48.8KB`, `2KB`. */
export function formatBytesBinary(bytes: number): string {
  const kb = bytes / 1024
  if (kb < 1) return `${bytes} bytes`
  if (kb < 1024) return `${oneDecimal(kb)}KB`
  const mb = kb / 1024
  if (mb < 1024) return `${oneDecimal(mb)}MB`
  return `${oneDecimal(mb / 1024)}GB`
}
