/**
 * @module A fetched body as text: HTML becomes Markdown (turndown, scripts and styles
 * dropped); plain text, JSON, XML and other textual types stay as they are; anything else is
 * binary, which WebFetch does not read.
 */
import TurndownService from 'turndown'

export interface PageText {
  readonly format: 'markdown' | 'text'
  readonly text: string
}

const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml'])
const TEXTUAL_APPLICATION_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
])
/** Bytes looked at to tell text from binary when no content type was sent. */
const SNIFF_BYTES = 8192
const HTML_START = /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i

let converter: TurndownService | undefined

/** One converter for the process: it is configured once and keeps no state between pages. */
function turndown(): TurndownService {
  if (converter === undefined) {
    converter = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
    converter.remove(['script', 'style'])
  }
  return converter
}

export function htmlToMarkdown(html: string): string {
  return turndown().turndown(html).trim()
}

interface MediaType {
  readonly essence: string
  readonly charset: string | undefined
}

function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined || header.trim() === '') return undefined
  const [essence = '', ...parameters] = header.split(';')
  const charsetParameter = parameters.map((part) => part.trim()).find((part) => part.toLowerCase().startsWith('charset='))
  const charset = charsetParameter?.slice('charset='.length).replace(/^"|"$/g, '')
  return { essence: essence.trim().toLowerCase(), charset }
}

function isTextual(essence: string): boolean {
  return (
    essence.startsWith('text/') ||
    essence.endsWith('+json') ||
    essence.endsWith('+xml') ||
    TEXTUAL_APPLICATION_TYPES.has(essence)
  )
}

/** An unknown charset label falls back to UTF-8 rather than failing the fetch. */
function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body)
  } catch {
    return new TextDecoder('utf-8').decode(body)
  }
}

function looksBinary(body: Buffer): boolean {
  return body.subarray(0, SNIFF_BYTES).includes(0)
}

/**
 * The page as text, or undefined when its content is binary.
 * @example pageText('text/html; charset=utf-8', body) // { format: 'markdown', text: '# Title ...' }
 */
export function pageText(contentType: string | undefined, body: Buffer): PageText | undefined {
  const media = parseMediaType(contentType)
  if (media === undefined) {
    if (looksBinary(body)) return undefined
    const text = decode(body, undefined)
    return HTML_START.test(text) ? { format: 'markdown', text: htmlToMarkdown(text) } : { format: 'text', text }
  }
  if (HTML_TYPES.has(media.essence)) return { format: 'markdown', text: htmlToMarkdown(decode(body, media.charset)) }
  if (isTextual(media.essence)) return { format: 'text', text: decode(body, media.charset) }
  return undefined
}

/** The media type without parameters, for messages. */
export function essenceOf(contentType: string | undefined): string {
  return parseMediaType(contentType)?.essence ?? 'unknown'
}
