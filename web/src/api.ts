/**
 * @module The console's one way to the API: fetch with the bearer token kept in
 * sessionStorage. A 401 tells the listeners, which ask for the token again.
 */
import type { ErrorReply } from '../../src/contracts/api.js'

export const TOKEN_KEY = 'toolexec.token'

export interface Reply<T> {
  readonly status: number
  readonly body: T | undefined
  /** The server's `error.message`, or why the request could not be made at all. */
  readonly error: string | undefined
  readonly errorCode: string | undefined
  readonly errorDetails: unknown
}

export function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined
  } catch {
    return undefined
  }
}

export function storeToken(token: string | undefined): void {
  if (token === undefined || token === '') sessionStorage.removeItem(TOKEN_KEY)
  else sessionStorage.setItem(TOKEN_KEY, token)
}

const unauthorizedListeners = new Set<() => void>()

/** Called on every 401 reply; returns the function that stops listening. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener)
  return () => unauthorizedListeners.delete(listener)
}

export function authHeaders(token: string | undefined = storedToken()): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` }
}

function errorOf(body: unknown): ErrorReply['error'] | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined
  const error = (body as ErrorReply).error
  return typeof error === 'object' && error !== null ? error : undefined
}

export async function request<T>(method: string, route: string, body?: unknown, token?: string): Promise<Reply<T>> {
  const headers: Record<string, string> = authHeaders(token ?? storedToken())
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  } catch (error) {
    return { status: 0, body: undefined, error: `The server could not be reached (${String(error)})`, errorCode: undefined, errorDetails: undefined }
  }
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  if (response.status === 401 && token === undefined) for (const listener of unauthorizedListeners) listener()
  if (response.ok) return { status: response.status, body: parsed as T, error: undefined, errorCode: undefined, errorDetails: undefined }
  const error = errorOf(parsed)
  return {
    status: response.status,
    body: undefined,
    error: error?.message ?? `${response.status} ${response.statusText}`,
    errorCode: error?.code,
    errorDetails: error?.details,
  }
}

/** The `toolexec-artifact://<sessionId>/<artifactId>` of a result, as the route that serves its bytes. */
export function artifactRoute(uri: string): string | undefined {
  const match = /^toolexec-artifact:\/\/([^/]+)\/([^/]+)$/.exec(uri)
  if (match === null) return undefined
  return `/artifacts/${match[1] ?? ''}/${match[2] ?? ''}`
}

/** Fetches the bytes with the bearer and saves them under `fileName`: the token never goes in a URL. */
export async function downloadArtifact(uri: string, fileName: string): Promise<string | undefined> {
  const route = artifactRoute(uri)
  if (route === undefined) return `Not an artifact address: ${uri}`
  let response: Response
  try {
    response = await fetch(route, { headers: authHeaders() })
  } catch (error) {
    return `The server could not be reached (${String(error)})`
  }
  if (!response.ok) return errorOf(await response.json().catch(() => undefined))?.message ?? `${response.status} ${response.statusText}`
  const url = URL.createObjectURL(await response.blob())
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  // The download has taken its copy once the click's task ran.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
  return undefined
}

/** How much of an artifact Open shows: its first bytes, asked for with a Range header. */
export const PREVIEW_BYTES = 64 * 1024

export type ArtifactPreview =
  | { readonly kind: 'text'; readonly text: string; readonly shownBytes: number; readonly totalBytes: number }
  | { readonly kind: 'image'; readonly url: string }
  | { readonly kind: 'error'; readonly message: string }

/**
 * The artifact's first PREVIEW_BYTES as text (a 206 names the whole size in Content-Range),
 * or, for an image, all of it as a blob URL the page may show (img-src blob:).
 */
export async function previewArtifact(uri: string): Promise<ArtifactPreview> {
  const route = artifactRoute(uri)
  if (route === undefined) return { kind: 'error', message: `Not an artifact address: ${uri}` }
  let response: Response
  try {
    response = await fetch(route, { headers: { ...authHeaders(), range: `bytes=0-${PREVIEW_BYTES - 1}` } })
  } catch (error) {
    return { kind: 'error', message: `The server could not be reached (${String(error)})` }
  }
  if (!response.ok) return { kind: 'error', message: errorOf(await response.json().catch(() => undefined))?.message ?? `${response.status} ${response.statusText}` }
  if ((response.headers.get('content-type') ?? '').startsWith('image/')) return imagePreview(route)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1]
  // A cut may split a character: the decoder shows its first bytes as U+FFFD.
  return { kind: 'text', text: new TextDecoder().decode(bytes), shownBytes: bytes.length, totalBytes: total === undefined ? bytes.length : Number(total) }
}

async function imagePreview(route: string): Promise<ArtifactPreview> {
  const response = await fetch(route, { headers: authHeaders() })
  if (!response.ok) return { kind: 'error', message: `${response.status} ${response.statusText}` }
  return { kind: 'image', url: URL.createObjectURL(await response.blob()) }
}
