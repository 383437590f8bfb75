/**
 * @module The string replacement of Edit: exact, non-overlapping matches of old_string; zero
 * matches, or several without replace_all, are refused with a text that says which. In a CRLF
 * file the strings' LF breaks are matched and written as CRLF.
 */
import { FileToolError } from '../workspace.js'
import { toCrlf, type DecodedText } from '../write/text-codec.js'

export interface EditRequest {
  readonly old_string: string
  readonly new_string: string
  readonly replace_all?: boolean | undefined
}

export interface EditOutcome {
  readonly text: string
  readonly replacements: number
}

const QUOTE_MAX_CHARS = 200

function quote(text: string): string {
  const cut = text.length > QUOTE_MAX_CHARS ? `${text.slice(0, QUOTE_MAX_CHARS)}...` : text
  return JSON.stringify(cut)
}

function countOccurrences(text: string, needle: string): number {
  let count = 0
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) count++
  return count
}

/** The strings as they appear in this file: CRLF files get CRLF breaks, unless only the raw form matches. */
function inFileForm(text: string, lineEnding: DecodedText['format']['lineEnding'], request: EditRequest): { find: string; replace: string } {
  if (lineEnding !== 'crlf' || !request.old_string.includes('\n')) {
    return { find: request.old_string, replace: lineEnding === 'crlf' ? toCrlf(request.new_string) : request.new_string }
  }
  const find = toCrlf(request.old_string)
  if (text.includes(find) || !text.includes(request.old_string)) return { find, replace: toCrlf(request.new_string) }
  return { find: request.old_string, replace: request.new_string }
}

function noChange(): FileToolError {
  return new FileToolError('TOOL_ERR_EDIT_NO_CHANGE', 'No changes to make: old_string and new_string are exactly the same.')
}

/** Edit on a file that does not exist: only an empty old_string creates it. */
export function editOfMissingFile(filePath: string, request: EditRequest): EditOutcome {
  if (request.old_string !== '') {
    throw new FileToolError('TOOL_ERR_FILE_NOT_FOUND', `${filePath} does not exist. Use an empty old_string to create it, or Write.`)
  }
  return { text: request.new_string, replacements: 1 }
}

/** Applies the replacement to `decoded`; throws a FileToolError that says what went wrong. */
export function applyEdit(filePath: string, decoded: DecodedText, request: EditRequest): EditOutcome {
  if (request.old_string === request.new_string) throw noChange()
  if (request.old_string === '') {
    if (decoded.text !== '') {
      throw new FileToolError('TOOL_ERR_EDIT_EMPTY_OLD_STRING', `old_string is empty but ${filePath} is not; give the text to replace, or use Write to replace the whole file.`)
    }
    return { text: request.new_string, replacements: 1 }
  }
  const { find, replace } = inFileForm(decoded.text, decoded.format.lineEnding, request)
  const count = countOccurrences(decoded.text, find)
  if (count === 0) {
    throw new FileToolError(
      'TOOL_ERR_EDIT_NO_MATCH',
      `old_string was not found in ${filePath} (0 matches): ${quote(request.old_string)}. Read the file again and copy the text exactly, including whitespace and indentation.`,
    )
  }
  if (count > 1 && request.replace_all !== true) {
    throw new FileToolError(
      'TOOL_ERR_EDIT_SEVERAL_MATCHES',
      `old_string matches ${count} places in ${filePath}, but replace_all is false: ${quote(request.old_string)}. Add surrounding lines to old_string to make it unique, or set replace_all to true to replace all ${count}.`,
    )
  }
  // split/join and slices, not String.replace: `$&` and friends in new_string stay literal.
  const text = count === 1 ? replaceFirst(decoded.text, find, replace) : decoded.text.split(find).join(replace)
  return { text, replacements: count }
}

function replaceFirst(text: string, find: string, replace: string): string {
  const index = text.indexOf(find)
  return text.slice(0, index) + replace + text.slice(index + find.length)
}
