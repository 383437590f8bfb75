/**
 * The model-API formats through a real server with the real built-in tools, an MCP server and
 * an HTTP tool: the tools parameter of each API, calls posted as each API returned them, and
 * the results read back in that API's shape, each text byte for byte the call's modelContent.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FormattedScheduleReply, PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { MODEL_FORMATS, type ModelFormat } from '../../src/contracts/model-formats.js'
import { MAX_JSON_DEPTH } from '../../src/contracts/json-depth.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { MCP_SERVER_SCRIPT } from '../support/mcp-server.js'
import { carriedResults, expectCarriesModelContent, parseErrorOf, PIXEL_PNG } from '../support/model-formats.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { until } from '../support/until.js'
import { matching } from '../support/matchers.js'

let server: TestServer
let counter = 0

const fresh = (prefix: string): string => `${prefix}-${++counter}`

beforeAll(async () => {
  const configDir = tempDirSync('formats-config')
  const configFile = path.join(configDir, 'config.json')
  writeFileSync(configFile, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: ['--import', 'tsx', MCP_SERVER_SCRIPT] } } }))
  server = await startTestServer({ tools: builtinTools(), env: { TOOLEXEC_CONFIG: configFile } })
  writeFileSync(path.join(server.dataDir, 'one.txt'), 'first file\r\nwith <tags> & "quotes"\n')
  writeFileSync(path.join(server.dataDir, 'two.txt'), 'second file ✓ \u{1F600}\n')
  writeFileSync(path.join(server.dataDir, 'pixel.png'), PIXEL_PNG)
}, 60_000)

afterAll(async () => {
  await server?.close()
})

async function session(permissionMode = 'bypassPermissions'): Promise<string> {
  const id = fresh('formats')
  const created = await server.json('POST', '/sessions', { id, permissionMode })
  expect(created.status).toBe(201)
  return id
}

async function post(body: Record<string, unknown>): Promise<ScheduleAcceptedReply> {
  const reply = await server.json<ScheduleAcceptedReply>('POST', '/schedules', body)
  expect(reply.status, JSON.stringify(reply.body)).toBe(202)
  return reply.body
}

async function formatted(scheduleId: string, format: ModelFormat, wait = 10): Promise<FormattedScheduleReply> {
  const reply = await server.json<FormattedScheduleReply>('GET', `/schedules/${scheduleId}?wait=${wait}&format=${format}`)
  expect(reply.status).toBe(200)
  return reply.body
}

async function records(scheduleId: string): Promise<ScheduleReply> {
  return (await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)).body
}

/** The same calls in the shape each API returns them. */
function modelReply(format: ModelFormat, calls: ReadonlyArray<{ id: string; name: string; input: unknown; rawArguments?: string }>): Record<string, unknown> {
  if (format === 'anthropic') {
    return { anthropic: [{ type: 'text', text: 'Working on it.' }, ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input }))] }
  }
  const args = (call: (typeof calls)[number]): string => call.rawArguments ?? JSON.stringify(call.input)
  if (format === 'openai-chat') return { openaiChat: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: args(call) } })) }
  return {
    openaiResponses: [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      ...calls.map((call, index) => ({ type: 'function_call', id: `fc_${index}`, call_id: call.id, name: call.name, arguments: args(call), status: 'completed' })),
    ],
  }
}

describe('GET /tools?format=', () => {
  it('gives exactly the tools parameter of each API: built-in, MCP and HTTP tools, schemas as plain objects', async () => {
    const added = await server.json('POST', '/tools', {
      name: 'ticket_lookup',
      description: 'Looks up a ticket',
      inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      url: 'http://127.0.0.1:9/tickets',
    })
    expect(added.status).toBe(201)
    const own = (await server.json<{ tools: Array<{ name: string; description: string }> }>('GET', '/tools')).body.tools
    await until(
      async () => ((await server.json<{ tools: Array<{ name: string }> }>('GET', '/tools')).body.tools.some((tool) => tool.name === 'mcp__notes__lookup') ? true : undefined),
      'the MCP tools',
      20_000,
    )
    const names = (await server.json<{ tools: Array<{ name: string }> }>('GET', '/tools')).body.tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['Read', 'Bash', 'ticket_lookup', 'mcp__notes__lookup']))
    expect(own.length).toBeGreaterThan(10)

    const anthropic = (await server.json<Array<{ name: string; description: string; input_schema: Record<string, unknown> }>>('GET', '/tools?format=anthropic')).body
    expect(anthropic.map((tool) => tool.name)).toEqual(names)
    expect(anthropic.find((tool) => tool.name === 'ticket_lookup')).toEqual({
      name: 'ticket_lookup',
      description: 'Looks up a ticket',
      input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    })
    expect(anthropic.find((tool) => tool.name === 'mcp__notes__lookup')?.input_schema).toMatchObject({ type: 'object', required: ['query'] })
    for (const tool of anthropic) expect(Object.keys(tool.input_schema).filter((key) => key.startsWith('$'))).toEqual([])

    const chat = (await server.json<Array<{ type: string; function: { name: string; parameters: unknown } }>>('GET', '/tools?format=openai-chat')).body
    expect(chat.map((tool) => [tool.type, tool.function.name])).toEqual(names.map((name) => ['function', name]))
    expect(chat.map((tool) => tool.function.parameters)).toEqual(anthropic.map((tool) => tool.input_schema))

    const responses = (await server.json<Array<{ type: string; name: string; parameters: unknown; strict: boolean }>>('GET', '/tools?format=openai-responses')).body
    expect(responses.map((tool) => [tool.type, tool.name, tool.strict])).toEqual(names.map((name) => ['function', name, false]))
    expect(responses.map((tool) => tool.parameters)).toEqual(anthropic.map((tool) => tool.input_schema))
    expect(await server.json('DELETE', '/tools/ticket_lookup')).toMatchObject({ status: 204 })
  })

  it('refuses a format it does not know with a 400 naming the ones it does', async () => {
    const reply = await server.json<{ error: { code: string; message: string } }>('GET', '/tools?format=gemini')
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
    expect(reply.body.error.message).toBe('querystring/format must be one of "anthropic", "openai-chat", "openai-responses"')
  })
})

describe('a round trip in each format', () => {
  it.each(MODEL_FORMATS)('%s: two reads, an image, a saved Bash output and malformed arguments failing alone (R26); every text is the modelContent, ids kept', async (format) => {
    const sessionId = await session()
    const tag = format.replace(/-/g, '')
    const calls = [
      { id: `call_${tag}_one`, name: 'Read', input: { file_path: 'one.txt' } },
      { id: `call_${tag}_two`, name: 'Read', input: { file_path: 'two.txt' } },
      { id: `call_${tag}_png`, name: 'Read', input: { file_path: 'pixel.png' } },
      { id: `call_${tag}_seq`, name: 'Bash', input: { command: 'seq 1 40000' } },
      ...(format === 'anthropic' ? [] : [{ id: `call_${tag}_bad`, name: 'Read', input: null, rawArguments: '{"file_path": "one.txt"' }]),
    ]
    const accepted = await post({ sessionId, ...modelReply(format, calls) })
    expect(accepted.calls.map((call) => [call.id, call.name])).toEqual(calls.map((call) => [call.id, call.name]))
    const reply = await formatted(accepted.scheduleId, format)
    expect(reply).toMatchObject({ scheduleId: accepted.scheduleId, sessionId, status: 'completed', done: true, stopTurn: false })
    expect(reply).not.toHaveProperty('turnControl')
    const schedule = await records(accepted.scheduleId)
    const carried = expectCarriesModelContent(format, reply, schedule)

    const byId = new Map(schedule.calls.map((call) => [call.id, call]))
    expect(byId.get(`call_${tag}_one`)?.modelContent).toBe('     1\tfirst file\n     2\twith <tags> & "quotes"')
    const png = carried.get(`call_${tag}_png`)
    expect(png?.images).toEqual([PIXEL_PNG.toString('base64')])
    expect(png?.mediaTypes).toEqual(['image/png'])
    // R36: the stored result names the artifact instead of carrying the bytes: they were read back from it.
    const storedImage = (byId.get(`call_${tag}_png`)?.modelContent as Array<Record<string, unknown>>)[1]
    expect(storedImage).toMatchObject({ type: 'image', mediaType: 'image/png', artifactUri: matching(/^toolexec-artifact:\/\//) })
    expect(storedImage).not.toHaveProperty('data')
    const seq = byId.get(`call_${tag}_seq`)
    expect(seq?.result?.serialization.strategy).toBe('artifact')
    expect(seq?.modelContent).toMatch(/^<persisted-output>\n/)
    expect(carried.get(`call_${tag}_seq`)?.texts).toEqual([seq?.modelContent])
    if (format !== 'anthropic') {
      const bad = byId.get(`call_${tag}_bad`)
      expect(bad).toMatchObject({ status: 'failed', name: 'Read', input: '{"file_path": "one.txt"' })
      expect(bad?.modelContent).toBe(
        '<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe input is expected as a JSON object but provided as text that is not valid JSON ' +
          `(${parseErrorOf('{"file_path": "one.txt"')}): send the arguments again as one JSON object</tool_use_error>`,
      )
      expect(carried.get(`call_${tag}_bad`)?.texts).toEqual([bad?.modelContent])
      const others = schedule.calls.filter((call) => call.id !== bad?.id)
      expect(others.map((call) => call.status)).toEqual(others.map(() => 'succeeded'))
    }
  })

  it('Anthropic: the image is a base64 image block after its text, is_error false; a failed call is_error true', async () => {
    const sessionId = await session()
    const accepted = await post({
      sessionId,
      ...modelReply('anthropic', [
        { id: 'toolu_image', name: 'Read', input: { file_path: 'pixel.png' } },
        { id: 'toolu_missing', name: 'Read', input: { file_path: 'absent.txt' } },
      ]),
    })
    const reply = await formatted(accepted.scheduleId, 'anthropic')
    if (!('message' in reply) || reply.message === undefined) throw new Error('no message')
    const [image, missing] = reply.message.content
    expect(image?.is_error).toBe(false)
    expect(image?.content).toEqual([
      { type: 'text', text: `Image ${path.join(server.dataDir, 'pixel.png')} (image/png, ${PIXEL_PNG.length} bytes)` },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_PNG.toString('base64') } },
    ])
    expect(missing?.is_error).toBe(true)
    expect(typeof missing?.content).toBe('string')
  })

  it('OpenAI Chat: the tool message has the text; one user message after the tool messages carries the image as a data URL', async () => {
    const sessionId = await session()
    const accepted = await post({
      sessionId,
      ...modelReply('openai-chat', [
        { id: 'call_image', name: 'Read', input: { file_path: 'pixel.png' } },
        { id: 'call_text', name: 'Read', input: { file_path: 'one.txt' } },
      ]),
    })
    const reply = await formatted(accepted.scheduleId, 'openai-chat')
    if (!('messages' in reply) || reply.messages === undefined) throw new Error('no messages')
    expect(reply.messages.map((message) => message.role)).toEqual(['tool', 'tool', 'user'])
    expect(reply.messages[0]).toEqual({ role: 'tool', tool_call_id: 'call_image', content: `Image ${path.join(server.dataDir, 'pixel.png')} (image/png, ${PIXEL_PNG.length} bytes)` })
    expect(reply.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images returned by tool call call_image:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG.toString('base64')}` } },
      ],
    })
  })

  it('OpenAI Responses: the image is an input_image data URL after its input_text', async () => {
    const sessionId = await session()
    const accepted = await post({ sessionId, ...modelReply('openai-responses', [{ id: 'call_image', name: 'Read', input: { file_path: 'pixel.png' } }]) })
    const reply = await formatted(accepted.scheduleId, 'openai-responses')
    if (!('input' in reply) || reply.input === undefined) throw new Error('no input')
    expect(reply.input).toEqual([
      {
        type: 'function_call_output',
        call_id: 'call_image',
        output: [
          { type: 'input_text', text: `Image ${path.join(server.dataDir, 'pixel.png')} (image/png, ${PIXEL_PNG.length} bytes)` },
          { type: 'input_image', image_url: `data:image/png;base64,${PIXEL_PNG.toString('base64')}` },
        ],
      },
    ])
  })

  it('an MCP tool and its image come back in each shape too', async () => {
    const sessionId = await session()
    for (const format of MODEL_FORMATS) {
      const id = `call_mcp_${format.replace(/-/g, '')}`
      const accepted = await post({ sessionId, ...modelReply(format, [{ id, name: 'mcp__notes__picture', input: {} }]) })
      const reply = await formatted(accepted.scheduleId, format)
      const carried = expectCarriesModelContent(format, reply, await records(accepted.scheduleId))
      expect(carried.get(id)?.images.length).toBe(1)
    }
  })
})

describe('done and turn control', () => {
  it('R30: a result that stops the turn is told as stopTurn and turnControl; the calls after it come back cancelled with their texts', async () => {
    const sessionId = await session()
    for (const format of MODEL_FORMATS) {
      const tag = format.replace(/-/g, '')
      const calls = [
        { id: `call_${tag}_submit`, name: 'submit_result', input: { result: { ok: true } } },
        { id: `call_${tag}_after`, name: 'Read', input: { file_path: 'one.txt' } },
      ]
      const accepted = await post({ sessionId, ...modelReply(format, calls) })
      const reply = await formatted(accepted.scheduleId, format)
      expect(reply).toMatchObject({ done: true, stopTurn: true, status: 'stopped', turnControl: { reason: 'subagent_terminal', stopTurnAfterResult: true } })
      const schedule = await records(accepted.scheduleId)
      expect(schedule.calls.map((call) => call.status)).toEqual(['succeeded', 'cancelled'])
      expectCarriesModelContent(format, reply, schedule)
    }
  })

  it('while a call waits for approval the reply is not done and carries no results; once answered, it is', async () => {
    const sessionId = await session('default')
    const accepted = await post({ sessionId, ...modelReply('openai-responses', [{ id: 'call_write', name: 'Write', input: { file_path: 'new.txt', content: 'made\n' } }]) })
    let request: PermissionRequestRecord | undefined
    await until(async () => {
      const pending = await server.json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}&status=pending`)
      request = pending.body.requests[0]
      return request
    }, 'the approval request')
    for (const format of MODEL_FORMATS) {
      const waiting = await formatted(accepted.scheduleId, format, 0)
      expect(waiting).toEqual({ scheduleId: accepted.scheduleId, sessionId, turnId: accepted.turnId, status: 'running', done: false, stopTurn: false })
    }
    expect((await server.json('POST', `/permissions/${request?.id ?? ''}`, { decision: 'allow' })).status).toBe(200)
    const reply = await formatted(accepted.scheduleId, 'openai-responses')
    expect(reply.done).toBe(true)
    const carried = carriedResults('openai-responses', reply)
    expect(carried.get('call_write')?.texts).toEqual([(await records(accepted.scheduleId)).calls[0]?.modelContent])
  })
})

describe('bad requests', () => {
  it('a body with none or two of calls, anthropic, openaiChat, openaiResponses is a 400 that names them, and stores nothing', async () => {
    const sessionId = await session()
    const none = await server.json<{ error: { code: string; message: string } }>('POST', '/schedules', { sessionId })
    expect(none.status).toBe(400)
    expect(none.body.error.message).toBe('body must have exactly one of calls, anthropic, openaiChat, openaiResponses; none was given')
    const two = await server.json<{ error: { code: string; message: string } }>('POST', '/schedules', { sessionId, createSession: {}, calls: [], openaiChat: [] })
    expect(two.status).toBe(400)
    expect(two.body.error).toEqual({ code: 'API_ERR_VALIDATION', message: 'body must have exactly one of calls, anthropic, openaiChat, openaiResponses; calls and openaiChat were given' })
    const sessionView = await server.json<{ counts: { schedules: number } }>('GET', `/sessions/${sessionId}`)
    expect(sessionView.body.counts.schedules).toBe(0)
  })

  it.each(['openai-chat', 'openai-responses'] as const)('%s: arguments nested deeper than a body may nest fail that call alone with a text the model can act on', async (format) => {
    const sessionId = await session()
    const tag = format.replace(/-/g, '')
    const deep = `{"file_path": "one.txt", "x": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`
    const calls = [
      { id: `call_${tag}_deep`, name: 'Read', input: null, rawArguments: deep },
      { id: `call_${tag}_fine`, name: 'Read', input: { file_path: 'one.txt' } },
    ]
    const accepted = await post({ sessionId, ...modelReply(format, calls) })
    const reply = await formatted(accepted.scheduleId, format)
    expect(reply).toMatchObject({ status: 'completed', done: true })
    const byId = new Map((await records(accepted.scheduleId)).calls.map((call) => [call.id, call]))
    expect(byId.get(`call_${tag}_deep`)).toMatchObject({
      status: 'failed',
      modelContent:
        '<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe input is expected as a JSON object but provided as JSON text that nests ' +
        `objects or arrays deeper than ${MAX_JSON_DEPTH} levels: send the arguments again nested less deeply</tool_use_error>`,
    })
    expect(byId.get(`call_${tag}_fine`)?.status).toBe('succeeded')
  })

  it('a native call whose input nests deeper than a body may nest is a 400 and stores nothing', async () => {
    const sessionId = await session()
    const input = `{"file_path": "one.txt", "x": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`
    const body = `{"sessionId": ${JSON.stringify(sessionId)}, "calls": [{"id": "deep", "name": "Read", "input": ${input}}]}`
    const refused = await server.json<{ error: { code: string; message: string } }>('POST', '/schedules', body)
    expect(refused).toEqual({ status: 400, body: { error: { code: 'API_ERR_VALIDATION', message: `body must not nest objects or arrays deeper than ${MAX_JSON_DEPTH} levels` } } })
    expect((await server.json<{ counts: { schedules: number } }>('GET', `/sessions/${sessionId}`)).body.counts.schedules).toBe(0)
  })

  it('a tool_use block or function call without its id, or arguments that are not a string, is a 400', async () => {
    const sessionId = await session()
    const replies = await Promise.all([
      server.json('POST', '/schedules', { sessionId, createSession: {}, anthropic: [{ type: 'tool_use', name: 'Read', input: {} }] }),
      server.json('POST', '/schedules', { sessionId, createSession: {}, openaiChat: [{ type: 'function', function: { name: 'Read', arguments: '{}' } }] }),
      server.json('POST', '/schedules', { sessionId, createSession: {}, openaiResponses: [{ type: 'function_call', call_id: 'c1', name: 'Read', arguments: { file_path: 'x' } }] }),
      server.json('POST', '/schedules', { sessionId, createSession: {}, anthropic: 'not an array' }),
    ])
    expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400, 400])
  })

  it('an unknown format on a schedule is a 400; a model id used twice in the session is a 409', async () => {
    const sessionId = await session()
    const accepted = await post({ sessionId, ...modelReply('anthropic', [{ id: 'toolu_once', name: 'Read', input: { file_path: 'one.txt' } }]) })
    const unknown = await server.json<{ error: { message: string } }>('GET', `/schedules/${accepted.scheduleId}?format=xml`)
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.message).toContain('"anthropic", "openai-chat", "openai-responses"')
    const again = await server.json('POST', '/schedules', { sessionId, createSession: {}, ...modelReply('openai-chat', [{ id: 'toolu_once', name: 'Read', input: {} }]) })
    expect(again.status).toBe(409)
  })
})
