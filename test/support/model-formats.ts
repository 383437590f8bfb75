/**
 * What a schedule's reply in a model API's shape carries of each call, read back the way that
 * API reads it: the texts, the images (as base64) and the error flag. Tests compare it with the
 * call records' own `modelContent`, byte for byte.
 */
import { expect } from 'vitest'
import type { CallRecord, FormattedScheduleReply, ScheduleReply } from '../../src/contracts/api.js'
import type { ModelFormat } from '../../src/contracts/model-formats.js'

/** Node's own words for why the text is not JSON (they differ between Node versions). */
export function parseErrorOf(text: string): string {
  try {
    JSON.parse(text)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('valid JSON')
}

/** A 1x1 PNG, as a file a Read returns as an image. */
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

export interface CarriedResult {
  readonly texts: string[]
  /** base64 */
  readonly images: string[]
  readonly mediaTypes: string[]
  /** undefined where the format has no flag (OpenAI) */
  readonly isError: boolean | undefined
}

const DATA_URL = /^data:([^;]+);base64,(.*)$/s

function fromDataUrl(url: string): { mediaType: string; data: string } {
  const match = DATA_URL.exec(url)
  if (match === null) throw new Error(`not a base64 data URL: ${url.slice(0, 40)}`)
  return { mediaType: match[1] ?? '', data: match[2] ?? '' }
}

type Carried = Map<string, CarriedResult>

/** Each call id, in the payload's order, with what the payload carries for it. */
export function carriedResults(format: ModelFormat, reply: FormattedScheduleReply): Carried {
  if (format === 'anthropic') return anthropicCarried(reply)
  if (format === 'openai-chat') return chatCarried(reply)
  return responsesCarried(reply)
}

function anthropicCarried(reply: FormattedScheduleReply): Carried {
  const carried: Carried = new Map()
  if (!('message' in reply) || reply.message === undefined) throw new Error('no message')
  for (const result of reply.message.content) {
    const blocks = typeof result.content === 'string' ? [{ type: 'text' as const, text: result.content }] : result.content
    carried.set(result.tool_use_id, {
      texts: blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])),
      images: blocks.flatMap((block) => (block.type === 'image' ? [block.source.data] : [])),
      mediaTypes: blocks.flatMap((block) => (block.type === 'image' ? [block.source.media_type] : [])),
      isError: result.is_error,
    })
  }
  return carried
}

function chatCarried(reply: FormattedScheduleReply): Carried {
  const carried: Carried = new Map()
  if (!('messages' in reply) || reply.messages === undefined) throw new Error('no messages')
  let owner: string | undefined
  for (const message of reply.messages) {
    if (message.role === 'tool') {
      const texts = typeof message.content === 'string' ? [message.content] : message.content.map((part) => part.text)
      carried.set(message.tool_call_id, { texts, images: [], mediaTypes: [], isError: undefined })
      continue
    }
    for (const part of message.content) {
      if (part.type === 'text') {
        owner = /^Images returned by tool call (.+):$/.exec(part.text)?.[1]
        continue
      }
      const entry = owner === undefined ? undefined : carried.get(owner)
      if (entry === undefined) throw new Error('an image with no tool call before it')
      const image = fromDataUrl(part.image_url.url)
      entry.images.push(image.data)
      entry.mediaTypes.push(image.mediaType)
    }
  }
  return carried
}

function responsesCarried(reply: FormattedScheduleReply): Carried {
  const carried: Carried = new Map()
  if (!('input' in reply) || reply.input === undefined) throw new Error('no input')
  for (const item of reply.input) {
    const parts = typeof item.output === 'string' ? [{ type: 'input_text' as const, text: item.output }] : item.output
    const images = parts.flatMap((part) => (part.type === 'input_image' ? [fromDataUrl(part.image_url)] : []))
    carried.set(item.call_id, {
      texts: parts.flatMap((part) => (part.type === 'input_text' ? [part.text] : [])),
      images: images.map((image) => image.data),
      mediaTypes: images.map((image) => image.mediaType),
      isError: undefined,
    })
  }
  return carried
}

/** The texts of a record's modelContent as each format carries them: Chat gives a call with no text an empty one. */
export function expectedTexts(call: CallRecord, format: ModelFormat): string[] {
  const content = call.modelContent
  if (content === undefined) throw new Error(`${call.id} has no result`)
  if (typeof content === 'string') return [content]
  const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
  return format === 'openai-chat' && texts.length === 0 ? [''] : texts
}

/** The payload carries every call of the schedule, in call order, with exactly its modelContent's text and its error flag. */
export function expectCarriesModelContent(format: ModelFormat, reply: FormattedScheduleReply, records: ScheduleReply): Carried {
  const carried = carriedResults(format, reply)
  expect([...carried.keys()]).toEqual(records.calls.map((call) => call.id))
  for (const call of records.calls) {
    const entry = carried.get(call.id)
    expect(entry?.texts, call.id).toEqual(expectedTexts(call, format))
    if (entry?.isError !== undefined) expect(entry.isError, call.id).toBe(call.result?.isError)
  }
  return carried
}
