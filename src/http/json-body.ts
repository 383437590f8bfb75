/**
 * @module JSON request bodies, the only ones taken: fastify's own parser (with its
 * prototype-poisoning checks) behind a nesting limit. A body nested thousands of levels deep
 * parses fine but overflows the stack later, when it is stored or sent as an event; it is a
 * 400 at the door instead. Any other media type is 415, fastify's text/plain included: a page
 * on another origin sends text/plain, a form or multipart without asking first (a CORS
 * "simple" request), application/json only after a preflight the server can refuse.
 */
import type { FastifyInstance } from 'fastify'
import { ToolexecError } from '../contracts/errors.js'

/** The largest request body taken (a Write's content included). */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024

/** Far deeper than any tool input needs, far below what JSON.stringify can recurse. */
export const MAX_JSON_DEPTH = 128

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** True when objects and arrays in `text` nest deeper than `limit`; brackets inside strings do not count. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) inString = true
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--
  }
  return false
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, function parseJsonBody(request, body, done) {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    // A client that labels every request JSON (many do) may send an empty one to abort or delete.
    if (text.length === 0 && request.routeOptions.schema?.body === undefined) {
      done(null, undefined)
      return
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new ToolexecError('API_ERR_VALIDATION', [`body must not nest objects or arrays deeper than ${MAX_JSON_DEPTH} levels`]), undefined)
      return
    }
    // The default parser answers through done; its type merely allows a promise too.
    void parseJson(request, text, done)
  })
}
