/**
 * @module MCP content blocks (text, image, audio, resource, resource_link) as model content.
 * HTTP tools reply with the same blocks, so both share this mapping.
 */
import type { ModelContent, ModelContentBlock } from '../../contracts/model-content.js'

/** What an MCP or HTTP tool's handler returns; `isError` marks the result as an error in history (R28). */
export interface ToolReplyOutput {
  readonly content: ModelContent
  readonly isError: boolean
}

type Fields = Readonly<Record<string, unknown>>

/**
 * The blocks as model content: one string when every block is text, else blocks with images
 * kept as images and everything else described in text. Returns a reason for a malformed block.
 */
export function blocksToModelContent(blocks: readonly unknown[]): ModelContent | { readonly problem: string } {
  const converted: ModelContentBlock[] = []
  for (const [index, block] of blocks.entries()) {
    const one = blockToModelContent(block)
    if (typeof one === 'string') return { problem: `content[${index}] ${one}` }
    converted.push(one)
  }
  if (converted.every((block) => block.type === 'text')) return converted.map((block) => (block.type === 'text' ? block.text : '')).join('\n')
  return converted
}

/** One block, or why it is malformed. */
function blockToModelContent(block: unknown): ModelContentBlock | string {
  if (!isFields(block)) return 'is not an object'
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string' ? { type: 'text', text: block['text'] } : 'is a text block without a string `text`'
    case 'image':
      return imageBlock(block)
    case 'audio':
      return { type: 'text', text: `[audio ${stringOr(block['mimeType'], 'of unknown type')}, ${base64Bytes(block['data'])} bytes]` }
    case 'resource':
      return { type: 'text', text: resourceText(block['resource']) }
    case 'resource_link':
      return { type: 'text', text: `[${['resource link', block['name'], block['uri']].filter((part) => typeof part === 'string' && part !== '').join(' ')}]` }
    default:
      return typeof block['type'] === 'string' ? { type: 'text', text: JSON.stringify(block) } : 'has no string `type`'
  }
}

function imageBlock(block: Fields): ModelContentBlock | string {
  const data = block['data']
  const mediaType = block['mimeType'] ?? block['mediaType']
  if (typeof data !== 'string') return 'is an image block without base64 `data`'
  if (typeof mediaType !== 'string') return 'is an image block without `mimeType`'
  return { type: 'image', mediaType, data }
}

function resourceText(resource: unknown): string {
  if (!isFields(resource)) return '[resource]'
  if (typeof resource['text'] === 'string') return resource['text']
  const uri = stringOr(resource['uri'], 'unknown uri')
  return `[resource ${uri} (${stringOr(resource['mimeType'], 'binary')}, ${base64Bytes(resource['blob'])} bytes)]`
}

function base64Bytes(data: unknown): number {
  return typeof data === 'string' ? Buffer.byteLength(data, 'base64') : 0
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
