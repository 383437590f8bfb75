/**
 * @module A fetched body as text: HTML becomes Markdown (turndown, scripts and styles
 * dropped); plain text, JSON, XML and other textual types stay as they are; anything else is
 * binary, which WebFetch does not read.
 *
 * Turndown is synchronous and recursive: 10 MB of HTML takes seconds, and a page of a few
 * thousand nested elements overflows the stack after up to a minute of work. So it runs in a
 * worker thread, where it holds no session's event loop; a page it cannot convert in time,
 * or at all, is returned as its HTML text.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

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
/** Well past the ~8 s a 10 MB page takes on a loaded 2-core machine, well inside WebFetch's 60 s. */
export const MARKDOWN_LIMIT_MS = 20_000

const TURNDOWN_PATH = createRequire(import.meta.url).resolve('turndown')

// Plain JavaScript evaluated in the worker, so it runs the same under tsc output, tsx and vitest.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const TurndownService = require(workerData.turndownPath)
const converter = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
converter.remove(['script', 'style'])
parentPort.postMessage(converter.turndown(workerData.html).trim())
`

/** The page as Markdown, or undefined when the worker failed (a stack overflow) or ran past `limitMs`. */
export function htmlToMarkdown(html: string, signal: AbortSignal, limitMs: number = MARKDOWN_LIMIT_MS): Promise<string | undefined> {
  signal.throwIfAborted()
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { html, turndownPath: TURNDOWN_PATH } })
  return new Promise<string | undefined>((resolve, reject) => {
    const finish = (settle: () => void): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      void worker.terminate()
      settle()
    }
    const onAbort = (): void => {
      const reason: unknown = signal.reason
      finish(() => reject(reason))
    }
    const timer = setTimeout(() => finish(() => resolve(undefined)), limitMs)
    signal.addEventListener('abort', onAbort, { once: true })
    worker.once('message', (markdown: unknown) => finish(() => resolve(typeof markdown === 'string' ? markdown : undefined)))
    worker.once('error', () => finish(() => resolve(undefined)))
    worker.once('exit', () => finish(() => resolve(undefined)))
  })
}

async function markdownOrHtml(html: string, signal: AbortSignal): Promise<PageText> {
  const markdown = await htmlToMarkdown(html, signal)
  return markdown === undefined ? { format: 'text', text: html } : { format: 'markdown', text: markdown }
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
  return essence.startsWith('text/') || essence.endsWith('+json') || essence.endsWith('+xml') || TEXTUAL_APPLICATION_TYPES.has(essence)
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
 * @example await pageText('text/html; charset=utf-8', body, signal) // { format: 'markdown', text: '# Title ...' }
 */
export async function pageText(contentType: string | undefined, body: Buffer, signal: AbortSignal): Promise<PageText | undefined> {
  const media = parseMediaType(contentType)
  if (media === undefined) {
    if (looksBinary(body)) return undefined
    const text = decode(body, undefined)
    return HTML_START.test(text) ? markdownOrHtml(text, signal) : { format: 'text', text }
  }
  if (HTML_TYPES.has(media.essence)) return markdownOrHtml(decode(body, media.charset), signal)
  if (isTextual(media.essence)) return { format: 'text', text: decode(body, media.charset) }
  return undefined
}

/** The media type without parameters, for messages. */
export function essenceOf(contentType: string | undefined): string {
  return parseMediaType(contentType)?.essence ?? 'unknown'
}
