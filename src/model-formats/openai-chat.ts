/**
 * @module OpenAI's Chat Completions: the `tools` parameter, the assistant message's
 * `tool_calls` as calls, and the `tool` messages that answer them. A tool message carries
 * text only: the images of every call follow in one `user` message after the tool messages.
 */
import type { ScheduleCallInput } from '../contracts/api.js'
import type { OpenAIChatImagesMessage, OpenAIChatPart, OpenAIChatTool, OpenAIChatToolCalls, OpenAIChatToolMessage } from '../contracts/model-formats.js'
import { inputOfArguments } from './call-arguments.js'
import { dataUrl, imagesOf, textsOf, type ModelResult } from './model-result.js'
import { apiInputSchema, type ListedTool } from './tool-schema.js'

type ChatFunctionCall = Extract<OpenAIChatToolCalls[number], { type: 'function' }>

export function openaiChatTools(tools: readonly ListedTool[]): OpenAIChatTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: apiInputSchema(tool.inputSchema) },
  }))
}

/** The function calls, in order; other kinds of tool call are not toolexec's. */
export function callsFromOpenAIChat(toolCalls: OpenAIChatToolCalls): ScheduleCallInput[] {
  const calls: ScheduleCallInput[] = []
  for (const toolCall of toolCalls) {
    if (isFunctionCall(toolCall)) calls.push({ id: toolCall.id, name: toolCall.function.name, input: inputOfArguments(toolCall.function.arguments) })
  }
  return calls
}

function isFunctionCall(toolCall: OpenAIChatToolCalls[number]): toolCall is ChatFunctionCall {
  return toolCall.type === 'function' && 'function' in toolCall
}

export function imagesIntroduction(callId: string): string {
  return `Images returned by tool call ${callId}:`
}

export function openaiChatMessages(results: readonly ModelResult[]): Array<OpenAIChatToolMessage | OpenAIChatImagesMessage> {
  const messages: Array<OpenAIChatToolMessage | OpenAIChatImagesMessage> = results.map(toolMessage)
  const images = results.flatMap(imageParts)
  if (images.length > 0) messages.push({ role: 'user', content: images })
  return messages
}

/** One text block is the content as it is; several stay apart as text parts; none is an empty text. */
function toolMessage(result: ModelResult): OpenAIChatToolMessage {
  if (typeof result.content === 'string') return { role: 'tool', tool_call_id: result.id, content: result.content }
  const texts = textsOf(result.content)
  if (texts.length <= 1) return { role: 'tool', tool_call_id: result.id, content: texts[0]?.text ?? '' }
  return { role: 'tool', tool_call_id: result.id, content: texts.map((text) => ({ type: 'text', text: text.text })) }
}

function imageParts(result: ModelResult): OpenAIChatPart[] {
  if (typeof result.content === 'string') return []
  const images = imagesOf(result.content)
  if (images.length === 0) return []
  return [{ type: 'text', text: imagesIntroduction(result.id) }, ...images.map((image): OpenAIChatPart => ({ type: 'image_url', image_url: { url: dataUrl(image) } }))]
}
