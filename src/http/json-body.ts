/**
 * @module JSON request bodies, the only ones taken: fastify's own parser (with its
 * prototype-poisoning checks) behind a nesting limit (json-depth.ts). A body nested thousands
 * of levels deep parses fine but overflows the stack later, when it is stored or sent as an
 * event; it is a 400 at the door instead. Any other media type is 415, fastify's text/plain
 * included: a page on another origin sends text/plain, a form or multipart without asking
 * first (a CORS "simple" request), application/json only after a preflight the server can refuse.
 */
import type { FastifyInstance } from 'fastify'
import { ToolexecError } from '../contracts/errors.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../contracts/json-depth.js'

/** The largest request body taken (a Write's content included). */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024

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
