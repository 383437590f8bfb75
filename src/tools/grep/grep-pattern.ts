/**
 * @module What Grep looks for: the JavaScript regular expression (per line, as grep does),
 * a literal to pre-filter raw bytes when the pattern is one, and which files to search
 * (`glob`, `type`).
 */
import picomatch from 'picomatch'
import { FileToolError } from '../workspace.js'
import { createLiteralSearch, type LiteralSearch } from './literal-finder.js'
import { requiredLiteral } from './required-literal.js'

export interface CompiledPattern {
  /** The pattern as the model wrote it, for messages. */
  readonly source: string
  /** Global and multiline: scans a whole chunk of lines. */
  readonly scan: RegExp
  /** The same without `g`: decides a single line when a scan match ran past it. */
  readonly line: RegExp
  /** Set when the pattern is a plain, case-sensitive literal: then lines are found in the raw bytes. */
  readonly literal: LiteralSearch | undefined
  /**
   * Set when the pattern is a regular expression every match of which contains a literal
   * text (see requiredLiteral): a chunk of raw bytes without that text has no matching line.
   */
  readonly prefilter: LiteralSearch | undefined
}

/** A shorter required text rules out too little to pay for the search. */
const MIN_PREFILTER_LENGTH = 2

export type FileFilter = (relative: string) => boolean

const INLINE_IGNORE_CASE = '(?i)'
const UNICODE_ESCAPE = /\\[pPu]\{/
const META = '\\^$.|?*+()[]{}'
const LITERAL = /^(?:[^\\^$.|?*+()[\]{}\n]|\\[\\^$.|?*+()[\]{}/-])+$/

/** Compiles `pattern`; a leading `(?i)` (ripgrep style) means ignore case. */
export function compilePattern(pattern: string, ignoreCase: boolean): CompiledPattern {
  const inline = pattern.startsWith(INLINE_IGNORE_CASE)
  const source = inline ? pattern.slice(INLINE_IGNORE_CASE.length) : pattern
  const caseless = ignoreCase || inline
  const flags = `m${caseless ? 'i' : ''}${UNICODE_ESCAPE.test(source) ? 'u' : ''}`
  let line: RegExp
  try {
    line = new RegExp(source, flags)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const reason = message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '')
    throw new FileToolError(
      'TOOL_ERR_BAD_PATTERN',
      `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. Grep uses JavaScript regular expressions; escape ${META} with a backslash to match them literally.`,
    )
  }
  const literal = !caseless && LITERAL.test(source) ? Buffer.from(source.replace(/\\(.)/g, '$1'), 'utf8') : undefined
  return {
    source: pattern,
    scan: new RegExp(source, `g${flags}`),
    line,
    literal: literal === undefined ? undefined : createLiteralSearch(literal),
    prefilter: literal === undefined && !caseless ? prefilterOf(source) : undefined,
  }
}

function prefilterOf(source: string): LiteralSearch | undefined {
  const required = requiredLiteral(source)
  return required !== undefined && required.length >= MIN_PREFILTER_LENGTH ? createLiteralSearch(Buffer.from(required, 'latin1')) : undefined
}

/** ripgrep's common type names and their extensions. */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['c', 'h'],
  cpp: ['cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h', 'inl'],
  cs: ['cs'],
  css: ['css', 'scss', 'sass', 'less'],
  dart: ['dart'],
  elixir: ['ex', 'exs'],
  go: ['go'],
  haskell: ['hs', 'lhs'],
  html: ['html', 'htm', 'xhtml'],
  java: ['java'],
  js: ['js', 'jsx', 'mjs', 'cjs', 'vue'],
  json: ['json', 'jsonc', 'json5'],
  kotlin: ['kt', 'kts'],
  lua: ['lua'],
  markdown: ['md', 'markdown', 'mdx'],
  md: ['md', 'markdown', 'mdx'],
  php: ['php'],
  py: ['py', 'pyi'],
  python: ['py', 'pyi'],
  rb: ['rb', 'rake', 'gemspec'],
  ruby: ['rb', 'rake', 'gemspec'],
  rust: ['rs'],
  scala: ['scala', 'sc'],
  sh: ['sh', 'bash', 'zsh', 'ksh'],
  sql: ['sql'],
  svelte: ['svelte'],
  swift: ['swift'],
  toml: ['toml'],
  ts: ['ts', 'tsx', 'mts', 'cts'],
  txt: ['txt'],
  xml: ['xml', 'xsd', 'xsl', 'svg'],
  yaml: ['yaml', 'yml'],
}

function typeFilter(type: string): FileFilter {
  const extensions = FILE_TYPES[type.toLowerCase()]
  if (extensions === undefined) {
    throw new FileToolError('TOOL_ERR_UNKNOWN_TYPE', `Unknown file type ${JSON.stringify(type)}. Known types: ${Object.keys(FILE_TYPES).join(', ')}. Or use \`glob\`.`)
  }
  const wanted = new Set(extensions)
  return function hasTypeExtension(relative: string): boolean {
    const dot = relative.lastIndexOf('.')
    return dot > relative.lastIndexOf('/') && wanted.has(relative.slice(dot + 1).toLowerCase())
  }
}

/** A glob without a slash matches the file name at any depth (as `rg --glob` does); a leading `!` excludes. */
function globFilter(glob: string): FileFilter {
  const negated = glob.startsWith('!')
  const matches = picomatch(negated ? glob.slice(1) : glob, { dot: true, basename: true })
  return negated ? (relative) => !matches(relative) : (relative) => matches(relative)
}

/** The files to search under a directory; undefined when every file is. */
export function fileFilter(glob: string | undefined, type: string | undefined): FileFilter | undefined {
  const filters = [glob === undefined ? undefined : globFilter(glob), type === undefined ? undefined : typeFilter(type)].filter((filter): filter is FileFilter => filter !== undefined)
  if (filters.length === 0) return undefined
  return (relative) => filters.every((filter) => filter(relative))
}
