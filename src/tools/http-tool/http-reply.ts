/**
 * @module Calling an HTTP tool's endpoint: POST `{callId, sessionId, input}` as JSON, read at
 * most a bounded reply, and map `{content, isError?}` to the tool's output. Every way the
 * endpoint can fail is a business failure naming the tool; an abort is rethrown as it is.
 */
import type { Dispatcher } from 'undici'
import { ToolexecError, type ErrorCode } from '../../contracts/errors.js'
import type { ToolCallContext } from '../../contracts/ports.js'
import type { ToolBusinessFailure } from '../../contracts/tool-entry.js'
import { blocksToModelContent, type ToolReplyOutput } from '../mcp/mcp-content.js'

/** Far above any result budget; a reply beyond it is refused rather than buffered. */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024
const EXCERPT_CHARS = 300

export interface EndpointCall {
  readonly toolName: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly input: unknown
  readonly dispatcher?: Dispatcher | undefined
}

export async function callEndpoint(call: EndpointCall, ctx: ToolCallContext): Promise<ToolReplyOutput | ToolBusinessFailure> {
  // Loaded at the first call of an HTTP tool, not by every start.
  const { request } = await import('undici')
  const body = JSON.stringify({ callId: ctx.callId, sessionId: ctx.sessionId, input: call.input })
  let response: Dispatcher.ResponseData
  try {
    response = await request(call.url, {
      method: 'POST',
      headers: { accept: 'application/json', ...call.headers, 'content-type': 'application/json' },
      body,
      signal: ctx.signal,
      // The executor's deadline is the only clock; undici's own would cut long tools at 300 s.
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(call.dispatcher === undefined ? null : { dispatcher: call.dispatcher }),
    })
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason
    return failure('TOOL_ERR_HTTP_UNREACHABLE', [call.toolName, call.url, messageOf(error)])
  }
  let text: string | undefined
  try {
    text = await readBounded(response.body)
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason
    return failure('TOOL_ERR_HTTP_REPLY', [call.toolName, call.url, `the reply could not be read: ${messageOf(error)}`])
  }
  if (text === undefined) return failure('TOOL_ERR_HTTP_REPLY', [call.toolName, call.url, `the reply is larger than ${MAX_REPLY_BYTES} bytes`])
  if (response.statusCode < 200 || response.statusCode > 299) {
    return failure('TOOL_ERR_HTTP_STATUS', [call.toolName, call.url, response.statusCode, excerpt(text)])
  }
  const output = parseReply(text)
  return typeof output === 'string' ? failure('TOOL_ERR_HTTP_REPLY', [call.toolName, call.url, output]) : output
}

/** `{content: string | blocks, isError?: boolean}`, or why the reply is not that. */
export function parseReply(text: string): ToolReplyOutput | string {
  let reply: unknown
  try {
    reply = JSON.parse(text)
  } catch {
    return `not JSON: ${oneLine(text) || '(empty body)'}`
  }
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) return 'expected a JSON object {content, isError?}'
  const { content, isError } = reply as { content?: unknown; isError?: unknown }
  if (isError !== undefined && typeof isError !== 'boolean') return '`isError` must be a boolean'
  if (typeof content === 'string') return { content, isError: isError === true }
  if (!Array.isArray(content)) return '`content` must be a string or an array of content blocks'
  const converted = blocksToModelContent(content)
  if (typeof converted === 'object' && 'problem' in converted) return converted.problem
  return { content: converted, isError: isError === true }
}

/** The whole body as UTF-8, or undefined once it passes MAX_REPLY_BYTES. */
async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of body) {
    const buffer = chunk as Buffer
    bytes += buffer.length
    if (bytes > MAX_REPLY_BYTES) {
      body.destroy()
      return undefined
    }
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function failure(code: ErrorCode, args: readonly unknown[]): ToolBusinessFailure {
  return { result: false, errorCode: code, message: new ToolexecError(code, args).message }
}

/** `: <the start of the body>` for a status failure; empty for an empty body. */
function excerpt(text: string): string {
  const line = oneLine(text)
  return line === '' ? '' : `: ${line}`
}

function oneLine(text: string): string {
  const folded = text.replace(/\s+/g, ' ').trim()
  const chars = Array.from(folded)
  return chars.length > EXCERPT_CHARS ? `${chars.slice(0, EXCERPT_CHARS).join('')}...` : folded
}

function messageOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return error instanceof Error ? `${error.message}${cause}` : String(error)
}
