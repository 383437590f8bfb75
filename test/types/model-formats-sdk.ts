/**
 * Compile-time proof, run by `npm run typecheck`: the official SDKs' own types accept toolexec's
 * model-format replies as they are, and toolexec's request fields accept the SDKs' replies as
 * they are, without a cast. Both the contract types (the TypeBox schemas' static types) and the
 * types generated from openapi.yaml are checked. Nothing here runs.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import type { AnthropicScheduleReply, CreateScheduleBody, OpenAIChatScheduleReply, OpenAIResponsesScheduleReply } from '../../src/contracts/api.js'
import type {
  AnthropicTool,
  AnthropicToolResult,
  OpenAIChatImagesMessage,
  OpenAIChatTool,
  OpenAIChatToolMessage,
  OpenAIFunctionCallOutput,
  OpenAIResponsesTool,
} from '../../src/contracts/model-formats.js'
import type { components } from '../generated/openapi.js'

type Schemas = components['schemas']

// ---- our replies, taken by the SDKs' request types

export function anthropicRequest(tools: AnthropicTool[], reply: AnthropicScheduleReply, result: AnthropicToolResult): Anthropic.MessageCreateParams {
  const sdkTools: Anthropic.Tool[] = tools
  const single: Anthropic.ToolResultBlockParam = result
  const messages: Anthropic.MessageParam[] = reply.message === undefined ? [] : [reply.message]
  const user: Anthropic.MessageParam = { role: 'user', content: [single] }
  return { model: 'claude-sonnet-4-5', max_tokens: 1024, tools: sdkTools, messages: [...messages, user] }
}

export function anthropicRequestFromGenerated(tools: Schemas['AnthropicTool'][], message: Schemas['AnthropicToolResultsMessage']): Anthropic.MessageCreateParams {
  const sdkTools: Anthropic.Tool[] = tools
  const messages: Anthropic.MessageParam[] = [message]
  return { model: 'claude-sonnet-4-5', max_tokens: 1024, tools: sdkTools, messages }
}

export function chatRequest(tools: OpenAIChatTool[], reply: OpenAIChatScheduleReply, tool: OpenAIChatToolMessage, images: OpenAIChatImagesMessage): OpenAI.Chat.ChatCompletionCreateParams {
  const sdkTools: OpenAI.Chat.ChatCompletionTool[] = tools
  const toolMessage: OpenAI.Chat.ChatCompletionToolMessageParam = tool
  const userMessage: OpenAI.Chat.ChatCompletionUserMessageParam = images
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [...(reply.messages ?? []), toolMessage, userMessage]
  return { model: 'gpt-5', tools: sdkTools, messages }
}

export function chatRequestFromGenerated(tools: Schemas['OpenAIChatTool'][], messages: Schemas['OpenAIChatSchedule']['messages']): OpenAI.Chat.ChatCompletionCreateParams {
  const sdkTools: OpenAI.Chat.ChatCompletionTool[] = tools
  const sdkMessages: OpenAI.Chat.ChatCompletionMessageParam[] = messages ?? []
  return { model: 'gpt-5', tools: sdkTools, messages: sdkMessages }
}

export function responsesRequest(tools: OpenAIResponsesTool[], reply: OpenAIResponsesScheduleReply, output: OpenAIFunctionCallOutput): OpenAI.Responses.ResponseCreateParams {
  const sdkTools: OpenAI.Responses.FunctionTool[] = tools
  const item: OpenAI.Responses.ResponseInputItem = output
  const input: OpenAI.Responses.ResponseInputItem[] = [...(reply.input ?? []), item]
  return { model: 'gpt-5', tools: sdkTools, input }
}

export function responsesRequestFromGenerated(tools: Schemas['OpenAIResponsesTool'][], input: Schemas['OpenAIResponsesSchedule']['input']): OpenAI.Responses.ResponseCreateParams {
  const sdkTools: OpenAI.Responses.FunctionTool[] = tools
  const sdkInput: OpenAI.Responses.ResponseInputItem[] = input ?? []
  return { model: 'gpt-5', tools: sdkTools, input: sdkInput }
}

// ---- the SDKs' replies, taken by our request body

export function schedulesFromSdkReplies(message: Anthropic.Message, completion: OpenAI.Chat.ChatCompletion, response: OpenAI.Responses.Response): CreateScheduleBody[] {
  const anthropic: CreateScheduleBody['anthropic'] = message.content
  const toolCalls: OpenAI.Chat.ChatCompletionMessageToolCall[] = completion.choices[0]?.message.tool_calls ?? []
  const openaiChat: CreateScheduleBody['openaiChat'] = toolCalls
  const outputItems: OpenAI.Responses.ResponseOutputItem[] = response.output
  const openaiResponses: CreateScheduleBody['openaiResponses'] = outputItems
  return [
    { sessionId: 's', anthropic },
    { sessionId: 's', openaiChat },
    { sessionId: 's', openaiResponses },
  ]
}

export function generatedBodiesFromSdkReplies(
  message: Anthropic.Message,
  toolCalls: OpenAI.Chat.ChatCompletionMessageToolCall[],
  output: OpenAI.Responses.ResponseOutputItem[],
): Schemas['CreateScheduleBody'][] {
  return [
    { sessionId: 's', anthropic: message.content },
    { sessionId: 's', openaiChat: toolCalls },
    { sessionId: 's', openaiResponses: output },
  ]
}

// ---- the check can fail: a shape the SDK does not take is refused

export function refused(result: AnthropicToolResult): void {
  // @ts-expect-error An image block's media type is one of four: any string is not taken.
  const image: Anthropic.ImageBlockParam = { type: 'image', source: { type: 'base64', media_type: 'image/bmp' as string, data: '' } }
  // @ts-expect-error A tool result is not a tool message.
  const toolMessage: OpenAI.Chat.ChatCompletionToolMessageParam = result
  void image
  void toolMessage
}
