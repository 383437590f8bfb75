/**
 * @module Anthropic's Messages API: the `tools` parameter, the assistant content's `tool_use`
 * blocks as calls, and the `user` message of `tool_result` blocks that answers them.
 */
import type { ScheduleCallInput } from '../contracts/api.js'
import {
  ANTHROPIC_IMAGE_TYPES,
  type AnthropicAssistantContent,
  type AnthropicImageType,
  type AnthropicResultBlock,
  type AnthropicTool,
  type AnthropicToolResult,
  type AnthropicToolResultsMessage,
} from '../contracts/model-formats.js'
import type { ModelResult, ResolvedBlock } from './model-result.js'
import { apiInputSchema, type ListedTool } from './tool-schema.js'

const IMAGE_TYPES: ReadonlySet<string> = new Set(ANTHROPIC_IMAGE_TYPES)

export function anthropicTools(tools: readonly ListedTool[]): AnthropicTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: apiInputSchema(tool.inputSchema) }))
}

/** The `tool_use` blocks, in order; text, thinking and every other block are not calls. */
export function callsFromAnthropic(content: AnthropicAssistantContent): ScheduleCallInput[] {
  const calls: ScheduleCallInput[] = []
  for (const block of content) {
    if (isToolUse(block)) calls.push({ id: block.id, name: block.name, input: block.input })
  }
  return calls
}

function isToolUse(block: AnthropicAssistantContent[number]): block is Extract<AnthropicAssistantContent[number], { type: 'tool_use' }> {
  return block.type === 'tool_use' && 'id' in block
}

export function anthropicToolResults(results: readonly ModelResult[]): AnthropicToolResultsMessage {
  return { role: 'user', content: results.map(toolResult) }
}

function toolResult(result: ModelResult): AnthropicToolResult {
  const content = typeof result.content === 'string' ? result.content : result.content.map(resultBlock)
  return { type: 'tool_result', tool_use_id: result.id, content, is_error: result.isError }
}

function resultBlock(block: ResolvedBlock): AnthropicResultBlock {
  if (block.type === 'text') return { type: 'text', text: block.text }
  if (!isAnthropicImageType(block.mediaType)) {
    return { type: 'text', text: `[${block.mediaType} image not shown: the Messages API takes ${ANTHROPIC_IMAGE_TYPES.join(', ')}]` }
  }
  return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } }
}

function isAnthropicImageType(mediaType: string): mediaType is AnthropicImageType {
  return IMAGE_TYPES.has(mediaType)
}
