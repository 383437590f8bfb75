/** @module What a file is, from its first bytes: an image Read can show, binary, or text. */

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

/** Bytes enough for the magic numbers and the binary check (as git and grep sniff). */
export const SNIFF_BYTES = 8192

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const JPEG = [0xff, 0xd8, 0xff]

function startsWith(head: Uint8Array, magic: readonly number[], at = 0): boolean {
  if (head.length < at + magic.length) return false
  return magic.every((byte, index) => head[at + index] === byte)
}

function ascii(text: string): number[] {
  return [...text].map((char) => char.charCodeAt(0))
}

const GIF87 = ascii('GIF87a')
const GIF89 = ascii('GIF89a')
const RIFF = ascii('RIFF')
const WEBP = ascii('WEBP')

/** The image type by magic bytes, whatever the file's name says. */
export function imageTypeOf(head: Uint8Array): ImageMediaType | undefined {
  if (startsWith(head, PNG)) return 'image/png'
  if (startsWith(head, JPEG)) return 'image/jpeg'
  if (startsWith(head, GIF87) || startsWith(head, GIF89)) return 'image/gif'
  if (startsWith(head, RIFF) && startsWith(head, WEBP, 8)) return 'image/webp'
  return undefined
}

/** A NUL byte in the first bytes marks a binary file. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0)
}
