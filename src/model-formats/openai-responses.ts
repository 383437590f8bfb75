/**
 * @module OpenAI's Responses API: the `tools` parameter, the response's `function_call` output
 * items as calls, and the `function_call_output` input items that answer them.
 */
import type { ScheduleCallInput } from '../contracts/api.js'
import type { OpenAIFunctionCallOutput, OpenAIOutputPart, OpenAIResponsesOutput, OpenAIResponsesTool } from '../contracts/model-formats.js'
import { inputOfArguments } from './call-arguments.js'
import { dataUrl, type ModelResult, type ResolvedBlock } from './model-result.js'
import { apiInputSchema, type ListedTool } from './tool-schema.js'

type FunctionCallItem = Extract<OpenAIResponsesOutput[number], { type: 'function_call' }>

export function openaiResponsesTools(tools: readonly ListedTool[]): OpenAIResponsesTool[] {
  return tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: apiInputSchema(tool.inputSchema), strict: false }))
}

/** The `function_call` items, in order, each under its `call_id`; messages, reasoning and the rest are not calls. */
export function callsFromOpenAIResponses(output: OpenAIResponsesOutput): ScheduleCallInput[] {
  const calls: ScheduleCallInput[] = []
  for (const item of output) {
    if (isFunctionCall(item)) calls.push({ id: item.call_id, name: item.name, input: inputOfArguments(item.arguments) })
  }
  return calls
}

function isFunctionCall(item: OpenAIResponsesOutput[number]): item is FunctionCallItem {
  return item.type === 'function_call' && 'call_id' in item
}

export function openaiResponsesInput(results: readonly ModelResult[]): OpenAIFunctionCallOutput[] {
  return results.map((result) => ({
    type: 'function_call_output',
    call_id: result.id,
    output: typeof result.content === 'string' ? result.content : result.content.map(outputPart),
  }))
}

function outputPart(block: ResolvedBlock): OpenAIOutputPart {
  return block.type === 'text' ? { type: 'input_text', text: block.text } : { type: 'input_image', image_url: dataUrl(block) }
}
