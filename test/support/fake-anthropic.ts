/**
 * A fake Anthropic Messages API (POST /v1/messages, non-streaming) on 127.0.0.1 that plays the
 * scripted conversation of test/support/agent-script.ts and checks, at each turn, the
 * tool_result blocks the SDK sent back against toolexec's record of each call.
 */
import assert from 'node:assert/strict'
import type Anthropic from '@anthropic-ai/sdk'
import { FINAL_ANSWER, getJson, resultMismatches, scriptedTurns, turnOf, type ReturnedResult, type ScriptedCall, type ToolexecAccess } from './agent-script.js'
import { randomId, startJsonServer } from './fake-model-server.js'

export interface FakeModelServer {
  readonly url: string
  /** Every difference found between what the loop sent and what it should have: empty when all is right. */
  readonly mismatches: string[]
  /** The turns answered, in order (0 to 5; 5 is the final answer). */
  readonly turnsServed: number[]
  /** The scripted calls of each turn, with the ids this server gave them. */
  readonly turns: readonly ScriptedCall[][]
  close(): Promise<void>
}

/** `turns` replaces the scripted conversation's tool-call turns (the final answer still follows them). */
export async function startFakeAnthropic(toolexec: ToolexecAccess, turns: ScriptedCall[][] = scriptedTurns('toolu_01', 'schema')): Promise<FakeModelServer> {
  const mismatches: string[] = []
  const turnsServed: number[] = []
  const sent: Anthropic.Message[] = []

  async function onMessages(body: unknown): Promise<Anthropic.Message> {
    const params = body as Anthropic.MessageCreateParamsNonStreaming
    const turn = turnOf(turns, new Set(toolResults(params.messages.at(-1)).map((block) => block.tool_use_id)))
    turnsServed.push(turn)
    if (turn === 0) mismatches.push(...(await toolsMismatches(toolexec, params.tools)))
    else mismatches.push(...(await turnMismatches(params, turn)))
    const reply = turn < turns.length ? toolUseMessage(params.model, turns[turn] ?? []) : finalMessage(params.model)
    sent.push(reply)
    return reply
  }

  async function turnMismatches(params: Anthropic.MessageCreateParamsNonStreaming, turn: number): Promise<string[]> {
    const found: string[] = []
    const assistant = params.messages.at(-2)
    try {
      assert.deepEqual(assistant, { role: 'assistant', content: sent.at(-1)?.content }, 'the assistant message sent back')
    } catch (error) {
      found.push(`turn ${turn}: ${(error as Error).message}`)
    }
    const last = params.messages.at(-1)
    const results = toolResults(last)
    if (!Array.isArray(last?.content) || results.length !== last.content.length) found.push(`turn ${turn}: the user message holds more than tool_result blocks`)
    const returned = results.map(returnedResult)
    return [...found, ...(await resultMismatches(toolexec, turns[turn - 1] ?? [], returned)).map((line) => `turn ${turn}: ${line}`)]
  }

  const server = await startJsonServer({ 'POST /v1/messages': onMessages }, (message) => {
    mismatches.push(`request refused: ${message}`)
    return { type: 'error', error: { type: 'invalid_request_error', message } }
  })
  return { url: server.url, mismatches, turnsServed, turns, close: server.close }
}

function toolResults(message: Anthropic.MessageParam | undefined): Anthropic.ToolResultBlockParam[] {
  if (message?.role !== 'user' || typeof message.content === 'string') return []
  return message.content.filter((block): block is Anthropic.ToolResultBlockParam => block.type === 'tool_result')
}

function returnedResult(block: Anthropic.ToolResultBlockParam): ReturnedResult {
  const content = block.content ?? []
  const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content
  const texts: string[] = []
  const images: { mediaType: string; data: string }[] = []
  for (const part of parts) {
    if (part.type === 'text') texts.push(part.text)
    else if (part.type === 'image' && part.source.type === 'base64') images.push({ mediaType: part.source.media_type, data: part.source.data })
    else texts.push(`<unexpected ${JSON.stringify(part).slice(0, 200)}>`)
  }
  return { id: block.tool_use_id, texts, images, isError: block.is_error ?? false }
}

/** The tools of the first request are exactly toolexec's GET /tools?format=anthropic. */
async function toolsMismatches(toolexec: ToolexecAccess, tools: unknown): Promise<string[]> {
  try {
    assert.deepEqual(tools, await getJson(toolexec, '/tools?format=anthropic'))
    return []
  } catch (error) {
    return [`turn 0: tools: ${(error as Error).message.slice(0, 2000)}`]
  }
}

function toolUseMessage(model: string, calls: readonly { id: string; name: string; input: Record<string, unknown> }[]): Anthropic.Message {
  const content: Anthropic.ContentBlock[] = [
    { type: 'text', text: 'Let me use the tools for that.', citations: null },
    ...calls.map((call): Anthropic.ToolUseBlock => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input, caller: { type: 'direct' } })),
  ]
  return message(model, content, 'tool_use')
}

function finalMessage(model: string): Anthropic.Message {
  return message(model, [{ type: 'text', text: FINAL_ANSWER, citations: null }], 'end_turn')
}

function message(model: string, content: Anthropic.ContentBlock[], stopReason: Anthropic.StopReason): Anthropic.Message {
  return {
    id: randomId('msg_01'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 1200,
      output_tokens: 80,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      speed: null,
    },
  }
}
