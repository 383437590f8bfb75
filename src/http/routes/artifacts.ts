/** @module Artifact bytes, streamed with their media type and single-range support. */
import { createReadStream, type ReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
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

/**
 * The span of the artifact's file, opened before any byte is sent: a file missing here (another
 * server of a cluster saved it in a directory this one does not share) is a clear 404, not a cut stream.
 */
async function bytesOf(file: string, span: ByteRange, names: [string, string]): Promise<ReadStream> {
  try {
    return createReadStream('', { fd: await open(file, 'r'), start: span.start, end: span.end })
  } catch (error) {
    throw new ToolexecError('API_ERR_ARTIFACT_FILE_MISSING', [...names, (error as NodeJS.ErrnoException).code ?? String(error)])
  }
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
      const range = rangeHeader === undefined ? undefined : parseRange(rangeHeader, artifact.bytes)
      if (rangeHeader !== undefined && range === undefined) {
        void reply.header('content-range', `bytes */${artifact.bytes}`)
        throw new ToolexecError('API_ERR_RANGE', [rangeHeader, artifact.bytes])
      }
      // Exactly the recorded bytes: a process a command left running may still append to the file.
      const span = range ?? { start: 0, end: artifact.bytes - 1 }
      const body = span.end < span.start ? Buffer.alloc(0) : await bytesOf(artifact.path, span, [artifactId, sessionId])
      if (range !== undefined) void reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${artifact.bytes}`)
      return reply.header('content-length', span.end - span.start + 1).send(body)
    },
  )
  done()
}
