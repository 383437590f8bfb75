import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ErrorReply, PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply, ToolInfo } from '../../src/contracts/api.js'
import { startTestServer, type TestServer } from '../support/server.js'

let server: TestServer
let endpoint: Server
let endpointUrl: string
const received: unknown[] = []

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: { color?: string } }
      received.push(body)
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ content: `picked ${body.input.color ?? 'nothing'}` }))
    })
  })
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve))
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/tools/pick_color`
})

afterAll(async () => {
  endpoint.closeAllConnections()
  await new Promise((resolve) => endpoint.close(resolve))
})

beforeEach(async () => {
  server = await startTestServer()
})

afterEach(async () => {
  await server.close()
})

const INPUT_SCHEMA = { type: 'object', properties: { color: { type: 'string', enum: ['red', 'blue'] } }, required: ['color'], additionalProperties: false }

function pickColor(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'pick_color', description: 'Asks the user to pick a color', inputSchema: INPUT_SCHEMA, url: endpointUrl, ...extra }
}

async function toolNames(): Promise<string[]> {
  const reply = await server.json<{ tools: ToolInfo[] }>('GET', '/tools')
  return reply.body.tools.map((tool) => tool.name)
}

async function runCall(name: string, input: unknown): Promise<ScheduleReply> {
  await server.json('POST', '/sessions', { id: 's1', permissionMode: 'default' })
  const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's1', createSession: {}, calls: [{ id: 'c1', name, input }] })
  expect(accepted.status).toBe(202)
  return (await server.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)).body
}

describe('POST /tools', () => {
  it('registers an HTTP tool and replies 201 with its ToolInfo, schema as declared', async () => {
    const reply = await server.json<ToolInfo>('POST', '/tools', pickColor({ readOnly: true, sideEffectScope: 'none', timeout: { kind: 'deadline', defaultMs: 5_000 } }))
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual({
      name: 'pick_color',
      description: 'Asks the user to pick a color',
      inputSchema: INPUT_SCHEMA,
      flags: { readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none', alwaysAsk: false, requiresUserInteraction: false, dependencies: [] },
      timeout: { kind: 'deadline', defaultMs: 5_000 },
      resultBudget: { maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'truncate', previewDirection: 'head' },
    })
    expect(await toolNames()).toContain('pick_color')
  })

  it('runs the added tool through a schedule: the endpoint gets {callId, sessionId, input} and its content reaches the model', async () => {
    await server.json('POST', '/tools', pickColor({ readOnly: true, sideEffectScope: 'none' }))
    const schedule = await runCall('pick_color', { color: 'blue' })
    expect(schedule.calls[0]).toMatchObject({ status: 'succeeded', modelContent: 'picked blue' })
    expect(received.at(-1)).toEqual({ callId: 'c1', sessionId: 's1', input: { color: 'blue' } })
  })

  // Tables hold overrides: the endpoint's URL exists only once beforeAll ran.
  it.each([
    ['a built-in name', { name: 'Read' }],
    ['a name added before', {}],
  ])('replies 409 for %s', async (_, overrides) => {
    await server.json('POST', '/tools', pickColor())
    const reply = await server.json<ErrorReply>('POST', '/tools', pickColor(overrides))
    expect(reply.status).toBe(409)
    expect(reply.body.error.code).toBe('EXEC_ERR_DUPLICATE_TOOL')
  })

  it.each([
    ['no url', { url: undefined }, 'API_ERR_VALIDATION'],
    ['an input schema that is not an object schema', { inputSchema: { type: 'array' } }, 'API_ERR_VALIDATION'],
    ['a name with a space', { name: 'pick color' }, 'API_ERR_VALIDATION'],
    ['an unknown field', { colour: 'red' }, 'API_ERR_VALIDATION'],
    ['a file url', { url: 'file:///etc/passwd' }, 'EXEC_ERR_INVALID_TOOL'],
    ['the mcp__ prefix', { name: 'mcp__a__b' }, 'EXEC_ERR_INVALID_TOOL'],
  ])('replies 400 for a definition with %s', async (_, overrides, code) => {
    const body = pickColor(overrides)
    const reply = await server.json<ErrorReply>('POST', '/tools', body)
    expect([reply.status, reply.body.error.code]).toEqual([400, code])
    expect(await toolNames()).not.toContain(String(body['name']))
  })
})

describe('DELETE /tools/:name', () => {
  it('removes an HTTP tool with 204; later calls to it find no tool', async () => {
    await server.json('POST', '/tools', pickColor())
    const reply = await server.json('DELETE', '/tools/pick_color')
    expect([reply.status, reply.body]).toEqual([204, undefined])
    expect(await toolNames()).not.toContain('pick_color')
    const schedule = await runCall('pick_color', { color: 'red' })
    expect(schedule.calls[0]).toMatchObject({ status: 'failed', modelContent: 'Tool not found: pick_color' })
  })

  it('replies 404 for an unknown tool', async () => {
    const reply = await server.json<ErrorReply>('DELETE', '/tools/nope')
    expect([reply.status, reply.body.error]).toEqual([404, { code: 'API_ERR_TOOL_NOT_FOUND', message: 'Tool nope not found' }])
  })

  it('replies 409 for a built-in tool and keeps it', async () => {
    const reply = await server.json<ErrorReply>('DELETE', '/tools/Read')
    expect([reply.status, reply.body.error.code]).toEqual([409, 'API_ERR_TOOL_NOT_DELETABLE'])
    expect(await toolNames()).toContain('Read')
  })
})

describe('client tools across a restart', () => {
  const restart = async (env: Record<string, string> = {}): Promise<void> => {
    await server.close()
    server = await startTestServer({ dataDir: server.dataDir, env })
  }

  it('registers an added tool again at start, with its definition, and runs it', async () => {
    const added = await server.json<ToolInfo>('POST', '/tools', pickColor({ readOnly: true, sideEffectScope: 'none' }))
    await restart()
    const tools = await server.json<{ tools: ToolInfo[] }>('GET', '/tools')
    expect(tools.body.tools.find((tool) => tool.name === 'pick_color')).toEqual(added.body)
    const schedule = await runCall('pick_color', { color: 'red' })
    expect(schedule.calls[0]).toMatchObject({ status: 'succeeded', modelContent: 'picked red' })
  })

  it('keeps a deleted tool deleted', async () => {
    await server.json('POST', '/tools', pickColor())
    await server.json('DELETE', '/tools/pick_color')
    await restart()
    expect(await toolNames()).not.toContain('pick_color')
    expect(await server.runtime.store.rules.clientTools()).toEqual([])
  })

  it('runs a call that awaited approval across the restart once it is allowed', async () => {
    await server.json('POST', '/tools', pickColor())
    await server.json('POST', '/sessions', { id: 's1', permissionMode: 'default' })
    const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: 's1', createSession: {}, calls: [{ id: 'c1', name: 'pick_color', input: { color: 'red' } }] })
    const pending = async (): Promise<PermissionRequestRecord[]> => (await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?sessionId=s1&status=pending')).body.requests
    await expect.poll(async () => (await pending()).length).toBe(1)
    await restart()
    const [request] = await pending()
    expect(request?.toolName).toBe('pick_color')
    const answer = await server.json('POST', `/permissions/${request?.id}`, { decision: 'allow' })
    expect(answer.status).toBe(200)
    const schedule = await server.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
    expect(schedule.body.calls[0]).toMatchObject({ status: 'succeeded', modelContent: 'picked red' })
  })

  it('leaves out a stored tool whose name the config file now gives another tool, and keeps it stored', async () => {
    await server.json('POST', '/tools', pickColor())
    const configFile = `${server.dataDir}/config.json`
    writeFileSync(configFile, JSON.stringify({ tools: [pickColor({ description: 'From the config file' })] }))
    await restart({ TOOLEXEC_CONFIG: configFile })
    const tools = await server.json<{ tools: ToolInfo[] }>('GET', '/tools')
    expect(tools.body.tools.filter((tool) => tool.name === 'pick_color').map((tool) => tool.description)).toEqual(['From the config file'])
    expect(await server.runtime.store.rules.clientTools()).toEqual([expect.objectContaining({ name: 'pick_color', description: 'Asks the user to pick a color' })])
  })

  it('does not keep a tool that was refused', async () => {
    await server.json('POST', '/tools', pickColor({ name: 'Read' }))
    await server.json('POST', '/tools', pickColor({ url: 'file:///etc/passwd' }))
    expect(await server.runtime.store.rules.clientTools()).toEqual([])
  })
})

describe('GET /tools and /healthz', () => {
  it('still list the registered tools and answer ok', async () => {
    expect(await toolNames()).toEqual(['Read', 'Edit', 'Sleep'])
    expect(await server.json('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } })
  })
})
