/**
 * A fake OpenAI API on 127.0.0.1: Chat Completions (POST /v1/chat/completions) and the
 * Responses API (POST /v1/responses), non-streaming. Each plays the scripted conversation of
 * test/support/agent-script.ts and checks, at each turn, the tool results the SDK sent back
 * against toolexec's record of each call.
 */
import assert from 'node:assert/strict'
import type OpenAI from 'openai'
import { FINAL_ANSWER, getJson, resultMismatches, scriptedTurns, turnOf, type ReturnedResult, type ScriptedCall, type ToolexecAccess } from './agent-script.js'
import type { FakeModelServer } from './fake-anthropic.js'
import { randomId, startJsonServer } from './fake-model-server.js'

type ChatParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming
type ResponsesParams = OpenAI.Responses.ResponseCreateParamsNonStreaming
/** A Response as the wire carries it: `output_text` is added by the SDK. */
type WireResponse = Omit<OpenAI.Responses.Response, 'output_text'>
type Image = { mediaType: string; data: string }

const IMAGES_INTRO = /^Images returned by tool call (.+):$/

/** `turns` replaces the scripted conversation's tool-call turns (the final answer still follows them). */
export async function startFakeOpenAI(toolexec: ToolexecAccess, turns: ScriptedCall[][] = scriptedTurns('call_', 'json')): Promise<FakeModelServer> {
  const mismatches: string[] = []
  const turnsServed: number[] = []
  let lastChatMessage: OpenAI.Chat.ChatCompletionMessage | undefined
  let lastResponseId: string | undefined

  async function check(turn: number, tools: unknown, format: string, findings: () => Promise<string[]>): Promise<void> {
    turnsServed.push(turn)
    const found = turn === 0 ? await toolsMismatches(toolexec, tools, format) : await findings()
    mismatches.push(...found.map((line) => `${format} turn ${turn}: ${line}`))
  }

  async function onChat(body: unknown): Promise<OpenAI.Chat.ChatCompletion> {
    const params = body as ChatParams
    const lastAssistant = params.messages.findLastIndex((message) => message.role === 'assistant')
    const after = params.messages.slice(lastAssistant + 1)
    const turn = turnOf(turns, new Set(after.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : []))))
    await check(turn, params.tools, 'openai-chat', async () => {
      const found = deepEqualOrMessage(params.messages[lastAssistant], lastChatMessage, 'the assistant message sent back')
      return [...found, ...(await resultMismatches(toolexec, turns[turn - 1] ?? [], chatResults(after)))]
    })
    lastChatMessage = turn < turns.length ? chatToolCalls(turns[turn] ?? []) : { role: 'assistant', content: FINAL_ANSWER, refusal: null, annotations: [] }
    return chatCompletion(params.model, lastChatMessage)
  }

  async function onResponses(body: unknown): Promise<WireResponse> {
    const params = body as ResponsesParams
    const items = typeof params.input === 'string' ? [] : (params.input ?? [])
    const turn = turnOf(turns, new Set(items.flatMap((item) => (item.type === 'function_call_output' ? [item.call_id] : []))))
    await check(turn, params.tools, 'openai-responses', async () => {
      const found = deepEqualOrMessage(params.previous_response_id, lastResponseId, 'previous_response_id')
      return [...found, ...(await resultMismatches(toolexec, turns[turn - 1] ?? [], responsesResults(items)))]
    })
    const output = turn < turns.length ? responsesToolCalls(turns[turn] ?? [], turn === 0) : [finalOutputMessage()]
    const response = wireResponse(params, output)
    lastResponseId = response.id
    return response
  }

  const server = await startJsonServer({ 'POST /v1/chat/completions': onChat, 'POST /v1/responses': onResponses }, (message) => {
    mismatches.push(`request refused: ${message}`)
    return { error: { message, type: 'invalid_request_error', param: null, code: null } }
  })
  return { url: `${server.url}/v1`, mismatches, turnsServed, turns, close: server.close }
}

/** The tool messages after the assistant's, with the images of the user messages that follow them. */
function chatResults(after: readonly OpenAI.Chat.ChatCompletionMessageParam[]): ReturnedResult[] {
  const images = new Map<string, Image[]>()
  const results: { id: string; texts: string[] }[] = []
  for (const message of after) {
    if (message.role === 'tool') {
      const content = message.content
      results.push({ id: message.tool_call_id, texts: typeof content === 'string' ? [content] : content.map((part) => part.text) })
    } else if (message.role === 'user' && Array.isArray(message.content)) {
      // "Images returned by tool call <id>:" then that call's images, for each call that has some.
      let callId: string | undefined
      for (const part of message.content) {
        const intro = part.type === 'text' ? IMAGES_INTRO.exec(part.text)?.[1] : undefined
        if (intro !== undefined) callId = intro
        else if (part.type === 'image_url' && callId !== undefined) images.set(callId, [...(images.get(callId) ?? []), fromDataUrl(part.image_url.url)])
        else results.push({ id: `<unexpected part of the images message: ${JSON.stringify(part).slice(0, 200)}>`, texts: [] })
      }
    } else {
      results.push({ id: `<unexpected ${message.role} message>`, texts: [] })
    }
  }
  return results.map((result) => ({ ...result, images: images.get(result.id) ?? [] }))
}

function responsesResults(items: readonly OpenAI.Responses.ResponseInputItem[]): ReturnedResult[] {
  return items.map((item): ReturnedResult => {
    if (item.type !== 'function_call_output') return { id: `<unexpected ${item.type ?? 'message'} item>`, texts: [], images: [] }
    if (typeof item.output === 'string') return { id: item.call_id, texts: [item.output], images: [] }
    const texts: string[] = []
    const images: Image[] = []
    for (const part of item.output) {
      if (part.type === 'input_text') texts.push(part.text)
      else if (part.type === 'input_image') images.push(fromDataUrl(part.image_url ?? ''))
      else texts.push(`<unexpected ${part.type}>`)
    }
    return { id: item.call_id, texts, images }
  })
}

function fromDataUrl(url: string): Image {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return match === null ? { mediaType: `<not a data URL: ${url.slice(0, 80)}>`, data: '' } : { mediaType: match[1] ?? '', data: match[2] ?? '' }
}

async function toolsMismatches(toolexec: ToolexecAccess, tools: unknown, format: string): Promise<string[]> {
  return deepEqualOrMessage(tools, await getJson(toolexec, `/tools?format=${format}`), 'tools')
}

function deepEqualOrMessage(actual: unknown, expected: unknown, what: string): string[] {
  try {
    assert.deepEqual(actual, expected)
    return []
  } catch (error) {
    return [`${what}: ${(error as Error).message.slice(0, 2000)}`]
  }
}

function argumentsOf(call: ScriptedCall): string {
  return call.rawArguments ?? JSON.stringify(call.input)
}

function chatToolCalls(calls: readonly ScriptedCall[]): OpenAI.Chat.ChatCompletionMessage {
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    annotations: [],
    tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: argumentsOf(call) } })),
  }
}

function chatCompletion(model: string, message: OpenAI.Chat.ChatCompletionMessage): OpenAI.Chat.ChatCompletion {
  return {
    id: randomId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: message.tool_calls === undefined ? 'stop' : 'tool_calls' }],
    usage: {
      prompt_tokens: 1200,
      completion_tokens: 80,
      total_tokens: 1280,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_0123456789',
  }
}

/** The first turn also has a reasoning item, as a reasoning model's output does: toolexec skips it. */
function responsesToolCalls(calls: readonly ScriptedCall[], withReasoning: boolean): OpenAI.Responses.ResponseOutputItem[] {
  const reasoning: OpenAI.Responses.ResponseReasoningItem[] = withReasoning ? [{ type: 'reasoning', id: randomId('rs_'), summary: [] }] : []
  return [
    ...reasoning,
    ...calls.map((call): OpenAI.Responses.ResponseFunctionToolCall => ({
      type: 'function_call',
      id: randomId('fc_'),
      call_id: call.id,
      name: call.name,
      arguments: argumentsOf(call),
      status: 'completed',
    })),
  ]
}

function finalOutputMessage(): OpenAI.Responses.ResponseOutputMessage {
  return {
    type: 'message',
    id: randomId('msg_'),
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: FINAL_ANSWER, annotations: [], logprobs: [] }],
  }
}

function wireResponse(params: ResponsesParams, output: OpenAI.Responses.ResponseOutputItem[]): WireResponse {
  return {
    id: randomId('resp_'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    completed_at: Math.floor(Date.now() / 1000),
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: params.model ?? 'gpt-5.4',
    output,
    parallel_tool_calls: true,
    previous_response_id: params.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: params.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: { input_tokens: 1200, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 80, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1280 },
    metadata: {},
  }
}
