/**
 * @module One page fetched with undici: redirects followed by hand (at most 10), every hop's
 * URL and resolved address checked, the body read up to maxResponseBytes and no further.
 *
 *   parse URL -> check scheme and literal IP -> request (the socket's DNS lookup checks the
 *   address) -> 3xx: next hop | 2xx: read capped body | other: failure
 */
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http'
import { Agent, request, type Dispatcher } from 'undici'
import type { WebFetchSettings } from '../services.js'
import { BlockedAddressError, guardedLookup, isBlockedAddress } from './address-policy.js'
import { WebFetchFailure } from './web-fetch-failure.js'

export const MAX_REDIRECTS = 10
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
const ALLOWED_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:'])
const ACCEPT = 'text/html, text/markdown, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5'

export interface FetchPageOptions {
  readonly signal: AbortSignal
  readonly settings: WebFetchSettings
  /** Origins exempt from the private-network check (an intranet service the host trusts). */
  readonly trustedOrigins: ReadonlySet<string>
}

export interface FetchedPage {
  readonly finalUrl: string
  readonly statusCode: number
  readonly contentType: string | undefined
  readonly body: Buffer
  readonly redirects: number
}

type ResponseData = Dispatcher.ResponseData

/** Two dispatchers per fetch, made on first use and closed with it: one checks addresses, one does not. */
class HopDispatchers {
  #guarded: Agent | undefined
  #open: Agent | undefined

  forUrl(url: URL, options: FetchPageOptions): Agent {
    if (isExempt(url, options)) return (this.#open ??= new Agent())
    return (this.#guarded ??= new Agent({ connect: { lookup: guardedLookup } }))
  }

  async close(): Promise<void> {
    await Promise.all([this.#guarded?.destroy(), this.#open?.destroy()])
  }
}

function isExempt(url: URL, options: FetchPageOptions): boolean {
  return options.settings.allowPrivateNetwork || options.trustedOrigins.has(url.origin)
}

/** Parses and checks one hop's URL; a literal IP never reaches a DNS lookup, so it is checked here. */
export function checkedUrl(raw: string, options: FetchPageOptions, base?: URL): URL {
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    throw new WebFetchFailure('TOOL_ERR_WEBFETCH_INVALID_URL', `Invalid URL: ${raw}`)
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
    const message = `Unsupported URL scheme "${url.protocol}" in ${url.href}: WebFetch fetches http and https URLs only`
    throw new WebFetchFailure('TOOL_ERR_WEBFETCH_INVALID_URL', message)
  }
  if (!isExempt(url, options) && isBlockedAddress(url.hostname)) throw new BlockedAddressError(url.hostname, url.hostname)
  return url
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function requestHop(url: URL, dispatcher: Dispatcher, options: FetchPageOptions): Promise<ResponseData> {
  return request(url, {
    method: 'GET',
    dispatcher,
    signal: options.signal,
    headers: { 'user-agent': options.settings.userAgent, accept: ACCEPT },
  })
}

/** The next hop of a redirect response, checked; undefined when the response is not a redirect. */
function redirectTarget(response: ResponseData, url: URL, options: FetchPageOptions): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.statusCode)) return undefined
  const location = headerValue(response.headers, 'location')
  if (location === undefined) return undefined
  return checkedUrl(location, options, url)
}

function statusFailure(response: ResponseData, url: URL): WebFetchFailure {
  const text = STATUS_CODES[response.statusCode]
  const status = text === undefined ? `${response.statusCode}` : `${response.statusCode} ${text}`
  return new WebFetchFailure('TOOL_ERR_WEBFETCH_HTTP_STATUS', `HTTP ${status} from ${url.href}`)
}

function tooLarge(url: URL, maxBytes: number): WebFetchFailure {
  return new WebFetchFailure('TOOL_ERR_WEBFETCH_TOO_LARGE', `The response from ${url.href} is larger than maxResponseBytes (${maxBytes} bytes)`)
}

function ignoreError(): void {}

/** Drops a body unread; undici reports that as an abort error, which nobody needs to hear. */
function discard(response: ResponseData): void {
  response.body.on('error', ignoreError)
  response.body.destroy()
}

/** Reads the body, aborting the download the moment it passes `maxBytes`. */
async function readCapped(response: ResponseData, url: URL, maxBytes: number): Promise<Buffer> {
  const declared = Number(headerValue(response.headers, 'content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(response)
    throw tooLarge(url, maxBytes)
  }
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of response.body) {
    const bytes = chunk as Buffer
    total += bytes.length
    // Leaving the loop destroys the stream, which aborts the download.
    if (total > maxBytes) throw tooLarge(url, maxBytes)
    chunks.push(bytes)
  }
  return Buffer.concat(chunks, total)
}

function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300
}

async function followRedirects(rawUrl: string, options: FetchPageOptions, dispatchers: HopDispatchers): Promise<FetchedPage> {
  let url = checkedUrl(rawUrl, options)
  for (let redirects = 0; ; redirects++) {
    const response = await requestHop(url, dispatchers.forUrl(url, options), options)
    if (isSuccess(response.statusCode)) {
      const body = await readCapped(response, url, options.settings.maxResponseBytes)
      return { finalUrl: url.href, statusCode: response.statusCode, contentType: headerValue(response.headers, 'content-type'), body, redirects }
    }
    discard(response)
    const next = redirectTarget(response, url, options)
    if (next === undefined) throw statusFailure(response, url)
    if (redirects >= MAX_REDIRECTS) {
      throw new WebFetchFailure('TOOL_ERR_WEBFETCH_TOO_MANY_REDIRECTS', `Too many redirects (more than ${MAX_REDIRECTS}) starting from ${rawUrl}`)
    }
    url = next
  }
}

/**
 * Fetches `rawUrl` with GET. Throws a WebFetchFailure or BlockedAddressError for what the
 * model should correct, and undici's own error for a network failure or an abort.
 */
export async function fetchPage(rawUrl: string, options: FetchPageOptions): Promise<FetchedPage> {
  const dispatchers = new HopDispatchers()
  try {
    return await followRedirects(rawUrl, options, dispatchers)
  } finally {
    await dispatchers.close()
  }
}
