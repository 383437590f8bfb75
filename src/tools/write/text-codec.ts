/**
 * @module How a text file is laid out on disk, so that a write keeps it: UTF-8 with or
 * without a byte order mark, LF or CRLF line endings.
 */

export type LineEnding = 'lf' | 'crlf'

export interface TextFormat {
  readonly bom: boolean
  readonly lineEnding: LineEnding
}

export interface DecodedText {
  /** The text without its byte order mark. */
  readonly text: string
  readonly format: TextFormat
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf])
const BOM_CHAR = '\ufeff'

export const NEW_FILE_FORMAT: TextFormat = Object.freeze({ bom: false, lineEnding: 'lf' })

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
}

/** CRLF when most line breaks are CRLF; a file without line breaks counts as LF. */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0
  let lf = 0
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf++
    else lf++
  }
  return crlf > lf ? 'crlf' : 'lf'
}

/** Every line break as CRLF (existing CRLFs stay single). */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n')
}

export function decodeText(bytes: Buffer): DecodedText {
  const bom = hasUtf8Bom(bytes)
  const text = bytes.toString('utf8', bom ? 3 : 0)
  return { text, format: { bom, lineEnding: detectLineEnding(text) } }
}

/** The bytes of `text` in `format`: LF breaks become CRLF in a CRLF file, the BOM is kept. */
export function encodeText(text: string, format: TextFormat): Buffer {
  const body = format.lineEnding === 'crlf' ? toCrlf(text) : text
  if (!format.bom) return Buffer.from(body, 'utf8')
  const unmarked = body.startsWith(BOM_CHAR) ? body.slice(1) : body
  return Buffer.concat([UTF8_BOM, Buffer.from(unmarked, 'utf8')])
}
