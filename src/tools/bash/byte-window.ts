/**
 * @module Windows cut out of a byte stream (its first or its last bytes) decoded as UTF-8
 * without a character cut in two at the window's edge.
 */

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80
}

/** Decodes bytes that may start inside a character: its stray continuation bytes are dropped. */
export function decodeTail(bytes: Buffer): string {
  let start = 0
  while (start < 3 && isContinuation(bytes[start])) start++
  return bytes.toString('utf8', start)
}

/** Decodes bytes that may end inside a character: the incomplete character is dropped. */
export function decodeHead(bytes: Buffer): string {
  let lead = bytes.length - 1
  while (lead > bytes.length - 4 && lead > 0 && isContinuation(bytes[lead])) lead--
  const byte = bytes[lead] ?? 0
  const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
  const end = bytes.length - lead < needed ? lead : bytes.length
  return bytes.toString('utf8', 0, end)
}
