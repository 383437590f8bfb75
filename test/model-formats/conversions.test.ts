/**
 * The model-API adapters as pure functions: calls read from each API's reply keep their ids,
 * names and order; results keep every text byte for byte, every image's bytes, and R28's flag.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anthropicToolResults, anthropicTools, callsFromAnthropic } from '../../src/model-formats/anthropic.js'
import { inputOfArguments } from '../../src/model-formats/call-arguments.js'
import type { ModelResult, ResolvedBlock } from '../../src/model-formats/model-result.js'
import { callsFromOpenAIChat, openaiChatMessages, openaiChatTools } from '../../src/model-formats/openai-chat.js'
import { callsFromOpenAIResponses, openaiResponsesInput, openaiResponsesTools } from '../../src/model-formats/openai-responses.js'
import { apiInputSchema } from '../../src/model-formats/tool-schema.js'
import { formatValidationError } from '../../src/executor/errors.js'
import { Type } from '@sinclair/typebox'
import { parseErrorOf } from '../support/model-formats.js'

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)
const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,30}$/)
// Any text: lone surrogates, NULs, CRLF, markup and all.
const text = fc.string({ unit: 'binary', maxLength: 300 })
const mediaType = fc.constantFrom('image/png', 'image/jpeg', 'image/gif', 'image/webp')
const block: fc.Arbitrary<ResolvedBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('image' as const), mediaType, data: fc.base64String({ maxLength: 40 }) }),
)
const result: fc.Arbitrary<ModelResult> = fc.record({
  id,
  content: fc.oneof(text, fc.array(block, { maxLength: 5 })),
  isError: fc.boolean(),
})
const results = fc.uniqueArray(result, { selector: (entry) => entry.id, maxLength: 8 })

function textsOf(content: ModelResult['content']): string[] {
  return typeof content === 'string' ? [content] : content.flatMap((entry) => (entry.type === 'text' ? [entry.text] : []))
}

function imagesOf(content: ModelResult['content']): string[] {
  return typeof content === 'string' ? [] : content.flatMap((entry) => (entry.type === 'image' ? [`data:${entry.mediaType};base64,${entry.data}`] : []))
}

describe('tool calls read from a model reply', () => {
  it('Anthropic: the tool_use blocks become the calls, ids, names and inputs as given, in order; other blocks are not calls', () => {
    const toolUse = fc.record({ type: fc.constant('tool_use' as const), id, name, input: fc.jsonValue() })
    const other = fc.oneof(
      fc.record({ type: fc.constant('text'), text }),
      fc.record({ type: fc.constant('thinking'), thinking: text, signature: text }),
      fc.record({ type: fc.constant('redacted_thinking'), data: text }),
    )
    fc.assert(
      fc.property(fc.array(fc.oneof(toolUse, other), { maxLength: 12 }), (content) => {
        const expected = content.flatMap((entry) => (entry.type === 'tool_use' && 'id' in entry ? [{ id: entry.id, name: entry.name, input: entry.input }] : []))
        expect(callsFromAnthropic(content)).toEqual(expected)
      }),
    )
  })

  it('OpenAI Chat and Responses: each function call becomes a call under its id, its arguments parsed, in order', () => {
    const input = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }))
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ id, name, input }), { selector: (call) => call.id, maxLength: 10 }), (calls) => {
        const chat = calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.input) } }))
        const responses = calls.map((call) => ({ type: 'function_call' as const, id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: JSON.stringify(call.input) }))
        const expected = calls.map((call) => ({ id: call.id, name: call.name, input: JSON.parse(JSON.stringify(call.input)) as unknown }))
        expect(callsFromOpenAIChat(chat)).toEqual(expected)
        const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] }
        const message = { type: 'message', id: 'msg_1', role: 'assistant' }
        expect(callsFromOpenAIResponses([reasoning, ...responses, message])).toEqual(expected)
      }),
    )
  })

  it('Chat: a tool call of another kind than function is not a call', () => {
    const calls = callsFromOpenAIChat([
      { id: 'call_1', type: 'custom', custom: { name: 'grammar', input: 'x' } } as { type: string },
      { id: 'call_2', type: 'function', function: { name: 'Read', arguments: '{}' } },
    ])
    expect(calls).toEqual([{ id: 'call_2', name: 'Read', input: {} }])
  })

  it('R26: arguments that are no JSON stay the text, so the call fails its schema check with what the parser saw; empty arguments are {}', () => {
    expect(inputOfArguments('{"file_path": "a.t')).toBe('{"file_path": "a.t')
    expect(inputOfArguments('  ')).toEqual({})
    expect(inputOfArguments('[1,2]')).toEqual([1, 2])
    const schema = Type.Object({ file_path: Type.String() })
    expect(formatValidationError('Read', schema, inputOfArguments('{"file_path": "a.t'))).toBe(
      '<tool_use_error>InputValidationError: Read failed due to the following issue:\n' +
        `The input is expected as a JSON object but provided as text that is not valid JSON (${parseErrorOf('{"file_path": "a.t')}): ` +
        'send the arguments again as one JSON object</tool_use_error>',
    )
    expect(formatValidationError('Read', schema, '{"file_path":"a"}')).toContain('a string holding JSON text: give the object itself, not a string')
    expect(formatValidationError('Read', schema, inputOfArguments('[1,2]'))).toContain('The parameter `(root)` type is expected as `object` but provided as `array`')
  })
})

describe('results in each API shape', () => {
  it('Anthropic: one tool_result per call, in order, ids and is_error kept, texts byte for byte, images as base64 blocks', () => {
    fc.assert(
      fc.property(results, (given) => {
        const message = anthropicToolResults(given)
        expect(message.role).toBe('user')
        expect(message.content.map((entry) => entry.tool_use_id)).toEqual(given.map((entry) => entry.id))
        message.content.forEach((entry, index) => {
          const source = given[index] as ModelResult
          expect(entry.is_error).toBe(source.isError)
          const blocks = typeof entry.content === 'string' ? [{ type: 'text' as const, text: entry.content }] : entry.content
          expect(blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []))).toEqual(textsOf(source.content))
          expect(blocks.flatMap((b) => (b.type === 'image' ? [`data:${b.source.media_type};base64,${b.source.data}`] : []))).toEqual(imagesOf(source.content))
          if (typeof source.content === 'string') expect(entry.content).toBe(source.content)
        })
      }),
    )
  })

  it('Anthropic: an image of a type the API does not take becomes a text that says so', () => {
    const message = anthropicToolResults([{ id: 't1', isError: false, content: [{ type: 'image', mediaType: 'image/bmp', data: 'AA==' }] }])
    expect(message.content[0]?.content).toEqual([{ type: 'text', text: '[image/bmp image not shown: the Messages API takes image/jpeg, image/png, image/gif, image/webp]' }])
  })

  it('OpenAI Chat: one tool message per call with its texts byte for byte; the images after them in one user message, each group named by its call', () => {
    fc.assert(
      fc.property(results, (given) => {
        const messages = openaiChatMessages(given)
        const tools = messages.filter((message) => message.role === 'tool')
        expect(tools.map((message) => message.tool_call_id)).toEqual(given.map((entry) => entry.id))
        tools.forEach((message, index) => {
          const source = given[index] as ModelResult
          const texts = typeof message.content === 'string' ? [message.content] : message.content.map((part) => part.text)
          const expected = textsOf(source.content)
          expect(texts).toEqual(expected.length === 0 ? [''] : expected)
        })
        const users = messages.filter((message) => message.role === 'user')
        const withImages = given.filter((entry) => imagesOf(entry.content).length > 0)
        expect(users).toHaveLength(withImages.length > 0 ? 1 : 0)
        expect(messages.slice(0, given.length).every((message) => message.role === 'tool')).toBe(true)
        const expectedParts = withImages.flatMap((entry) => [
          { type: 'text', text: `Images returned by tool call ${entry.id}:` },
          ...imagesOf(entry.content).map((url) => ({ type: 'image_url', image_url: { url } })),
        ])
        expect(users[0]?.content ?? []).toEqual(expectedParts)
      }),
    )
  })

  it('OpenAI Responses: one function_call_output per call, in order, the text as is or text and image parts in the order of the blocks', () => {
    fc.assert(
      fc.property(results, (given) => {
        const input = openaiResponsesInput(given)
        expect(input.map((item) => item.call_id)).toEqual(given.map((entry) => entry.id))
        input.forEach((item, index) => {
          const source = given[index] as ModelResult
          if (typeof source.content === 'string') return expect(item.output).toBe(source.content)
          expect(item.output).toEqual(
            source.content.map((entry) => (entry.type === 'text' ? { type: 'input_text', text: entry.text } : { type: 'input_image', image_url: `data:${entry.mediaType};base64,${entry.data}` })),
          )
        })
      }),
    )
  })
})

describe('the tools parameter', () => {
  const tools = [
    { name: 'Read', description: 'Reads', inputSchema: Type.Object({ file_path: Type.String() }, { $id: 'ReadInput' }) },
    { name: 'mcp__notes__find', description: '', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', properties: { q: { type: 'string' } } } },
  ]

  it('input schemas as plain JSON Schema objects, without $schema or $id at the top', () => {
    expect(apiInputSchema(tools[1]?.inputSchema)).toEqual({ type: 'object', properties: { q: { type: 'string' } } })
    expect(apiInputSchema(tools[0]?.inputSchema)).toEqual({ type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] })
    expect(apiInputSchema(undefined)).toEqual({ type: 'object' })
  })

  it('each API gets its own shape, every tool in order', () => {
    expect(anthropicTools(tools).map((tool) => [tool.name, tool.input_schema.type])).toEqual([
      ['Read', 'object'],
      ['mcp__notes__find', 'object'],
    ])
    expect(openaiChatTools(tools)[0]).toEqual({ type: 'function', function: { name: 'Read', description: 'Reads', parameters: apiInputSchema(tools[0]?.inputSchema) } })
    expect(openaiResponsesTools(tools)[1]).toEqual({
      type: 'function',
      name: 'mcp__notes__find',
      description: '',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      strict: false,
    })
  })
})
