/**
 * @module JSON request bodies: fastify's own parser (with its prototype-poisoning checks)
 * behind a nesting limit (json-depth.ts): a body nested deeper is a 400 at the door.
 */
import type { FastifyInstance } from 'fastify'
import { ToolexecError } from '../contracts/errors.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../contracts/json-depth.js'

/** The largest request body taken (a Write's content included). */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, function parseJsonBody(request, body, done) {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new ToolexecError('API_ERR_VALIDATION', [`body must not nest objects or arrays deeper than ${MAX_JSON_DEPTH} levels`]), undefined)
      return
    }
    // The default parser answers through done; its type merely allows a promise too.
    void parseJson(request, text, done)
  })
}
