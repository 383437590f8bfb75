import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { hasCode } from '../../src/contracts/errors.js'
import { parseToolConfig } from '../../src/tools/tool-config.js'
import { tempDir } from '../support/temp-dirs.js'

const FILE = '/etc/toolexec/config.json'
const tool = { name: 'pick_color', description: 'Asks the user for a color', inputSchema: { type: 'object', properties: {} }, url: 'http://127.0.0.1:3000/tools/pick_color' }
const { url: _url, ...toolWithoutUrl } = tool
const mcp = { command: 'node', args: ['server.js'], env: { TOKEN: 't' }, timeoutMs: 5_000 }

function errorOf(fileConfig: Record<string, unknown>): Error & { context?: unknown } {
  try {
    parseToolConfig(fileConfig, FILE)
  } catch (error) {
    expect(hasCode(error, 'CONF_ERR_TOOLS')).toBe(true)
    return error as Error
  }
  throw new Error('expected the config to be refused')
}

describe('the tools and mcpServers sections of the config file', () => {
  it('reads HTTP tool definitions and MCP servers, with each server named by its key', () => {
    const parsed = parseToolConfig(
      {
        tools: [tool, { ...tool, name: 'second', readOnly: true, sideEffectScope: 'none', headers: { 'x-key': 'v' } }],
        mcpServers: { files: mcp, 'git-tools': { type: 'stdio', command: 'git-mcp' } },
      },
      FILE,
    )
    expect(parsed.httpTools.map((definition) => definition.name)).toEqual(['pick_color', 'second'])
    expect(parsed.mcpServers).toEqual([
      { ...mcp, name: 'files' },
      { type: 'stdio', command: 'git-mcp', name: 'git-tools' },
    ])
  })

  it('reads nothing from a config without the sections', () => {
    expect(parseToolConfig({ other: 1 }, FILE)).toEqual({ httpTools: [], mcpServers: [], environment: {} })
  })

  it.each([
    ['tools that is not a list', { tools: {} }, 'tools', 'must be an array of tool definitions'],
    ['a tool without a url', { tools: [toolWithoutUrl] }, 'tools[0] (pick_color)', 'url: Expected required property'],
    ['a tool with an unknown field', { tools: [tool, { ...tool, name: 'b', colour: 'red' }] }, 'tools[1] (b)', 'colour: Unexpected property'],
    ['a tool name with a space', { tools: [{ ...tool, name: 'pick color' }] }, 'tools[0] (pick color)', 'name: Expected string to match'],
    ['an input schema that is not an object schema', { tools: [{ ...tool, inputSchema: { type: 'string' } }] }, 'tools[0] (pick_color)', 'inputSchema.type: Expected'],
    ['a tool with a non-http url', { tools: [{ ...tool, url: 'file:///etc/passwd' }] }, 'tools[0] (pick_color)', 'url must use http or https, not file'],
    ['two tools with one name', { tools: [tool, tool] }, 'tools[1] (pick_color)', 'the name pick_color is used by an earlier entry'],
    ['a tool that is not an object', { tools: ['x'] }, 'tools[0]', 'Expected object'],
    ['mcpServers that is a list', { mcpServers: [] }, 'mcpServers', 'must be an object mapping server names'],
    ['a server without a command', { mcpServers: { files: { args: [] } } }, 'mcpServers.files', 'command: Expected required property'],
    ['a server with a bad timeout', { mcpServers: { files: { ...mcp, timeoutMs: 0 } } }, 'mcpServers.files', 'timeoutMs: Expected integer to be greater or equal to 1'],
    ['a server with a non-string env value', { mcpServers: { files: { ...mcp, env: { N: 1 } } } }, 'mcpServers.files', 'env.N: Expected string'],
    ['a server name with a double underscore', { mcpServers: { my__files: mcp } }, 'mcpServers.my__files', 'without `__`'],
  ])('refuses %s, naming the file, the entry and the reason', (_, fileConfig, entry, reason) => {
    const error = errorOf(fileConfig)
    expect(error.message.startsWith(`Config file ${FILE}: ${entry}: `)).toBe(true)
    expect(error.message).toContain(reason)
    expect(error.context).toMatchObject({ file: FILE, entry })
  })

  it('parses the fileConfig that loadConfig read from a real file', async () => {
    const dir = await tempDir('config')
    const file = path.join(dir, 'toolexec.json')
    await writeFile(file, JSON.stringify({ tools: [tool], mcpServers: { files: mcp } }))
    const config = loadConfig(['--config', file], {})
    const parsed = parseToolConfig(config.fileConfig, config.configFile)
    expect(parsed.httpTools).toEqual([tool])
    expect(parsed.mcpServers[0]?.name).toBe('files')
  })
})
