/** @module Artifact bytes, streamed with their media type and single-range support. */
import { createReadStream } from 'node:fs'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { ToolexecError } from '../../contracts/errors.js'
import type { Runtime } from '../../sessions/runtime.js'
import { errors } from '../schema.js'

// Documented as any media type: the artifact's own is sent (image/png, text/plain, ...).
const BINARY = { description: "The artifact's bytes with its media type", content: { '*/*': { schema: Type.Unsafe<unknown>({ type: 'string', format: 'binary' }) } } }

export interface ByteRange {
  readonly start: number
  readonly end: number
}

// The media type comes from a tool (an MCP server's mimeType): what is no valid header value is sent as plain bytes.
const MEDIA_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(?:[ \t]*;[ \t]*[\w!#$%&'*+.^`|~-]+=(?:[\w!#$%&'*+.^`|~-]+|"[^"\\\r\n]*"))*$/
// Whatever the type says, the bytes never run as a page of the API's own origin.
const INERT = { 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" }

function servedMediaType(mediaType: string): string {
  return MEDIA_TYPE.test(mediaType) ? mediaType : 'application/octet-stream'
}

/** Parses one `bytes=a-b`, `bytes=a-` or `bytes=-n` range; undefined when it cannot be met. */
export function parseRange(header: string, size: number): ByteRange | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null || (match[1] === '' && match[2] === '')) return undefined
  const [, from = '', to = ''] = match
  if (from === '') {
    const suffix = Number(to)
    if (suffix === 0 || size === 0) return undefined
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(from)
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
  if (start >= size || end < start) return undefined
  return { start, end }
}

export const artifactRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.get(
    '/artifacts/:sessionId/:artifactId',
    {
      schema: {
        operationId: 'getArtifact',
        summary: "An artifact's bytes with its media type; supports a single Range",
        tags: ['artifacts'],
        params: Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 200 }), artifactId: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: BINARY, 206: BINARY, ...errors(404, 416) },
      },
    },
    async (request, reply) => {
      const { sessionId, artifactId } = request.params
      const artifact = await runtime.sessions.artifact(sessionId, artifactId)
      void reply.headers(INERT).header('accept-ranges', 'bytes').type(servedMediaType(artifact.mediaType))
      const rangeHeader = request.headers.range
      if (rangeHeader === undefined) {
        void reply.header('content-length', artifact.bytes)
        // Exactly the recorded bytes: a process a command left running may still append to the file.
        if (artifact.bytes === 0) return reply.send(Buffer.alloc(0))
        return reply.send(createReadStream(artifact.path, { start: 0, end: artifact.bytes - 1 }))
      }
      const range = parseRange(rangeHeader, artifact.bytes)
      if (range === undefined) {
        void reply.header('content-range', `bytes */${artifact.bytes}`)
        throw new ToolexecError('API_ERR_RANGE', [rangeHeader, artifact.bytes])
      }
      void reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${artifact.bytes}`)
        .header('content-length', range.end - range.start + 1)
      return reply.send(createReadStream(artifact.path, { start: range.start, end: range.end }))
    },
  )
  done()
}
