/**
 * @module The `tools` (client-defined HTTP tools) and `mcpServers` sections of the JSON config
 * file, checked against their TypeBox schemas. Every error names the file, the entry and the
 * reason, so that a broken config stops the server with a message that says what to fix.
 * @example
 *   const { httpTools, mcpServers } = parseToolConfig(config.fileConfig, config.configFile)
 */
import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { ToolexecError } from '../contracts/errors.js'
import {
  EnvironmentConfigSchema,
  HttpToolDefinitionSchema,
  MCP_SERVER_NAME_PATTERN,
  McpServerConfigSchema,
  type EnvironmentConfig,
  type HttpToolDefinition,
  type McpServerEntry,
} from '../contracts/tool-config.js'
import { environmentSettingsProblem } from '../processes/command-environment.js'
import { httpToolProblem } from './http-tool/index.js'

export interface ToolConfig {
  readonly httpTools: HttpToolDefinition[]
  readonly mcpServers: McpServerEntry[]
  /** The top-level `env` and `passEnv`, for every command, hook and MCP server. */
  readonly environment: EnvironmentConfig
}

const checkHttpTool = TypeCompiler.Compile(HttpToolDefinitionSchema)
const checkMcpServer = TypeCompiler.Compile(McpServerConfigSchema)
const checkEnvironment = TypeCompiler.Compile(EnvironmentConfigSchema)
const SERVER_NAME = new RegExp(MCP_SERVER_NAME_PATTERN)
const NO_FILE = '(inline config)'

/**
 * @param fileConfig the parsed config file (ServerConfig.fileConfig)
 * @param file its path, for messages
 * @throws ToolexecError CONF_ERR_TOOLS naming the file, the entry and the reason
 */
export function parseToolConfig(fileConfig: Readonly<Record<string, unknown>>, file: string = NO_FILE): ToolConfig {
  return {
    httpTools: parseHttpTools(fileConfig['tools'], file),
    mcpServers: parseMcpServers(fileConfig['mcpServers'], file),
    environment: parseEnvironment(fileConfig, file),
  }
}

function parseEnvironment(fileConfig: Readonly<Record<string, unknown>>, file: string): EnvironmentConfig {
  const candidate = Object.fromEntries(Object.entries({ env: fileConfig['env'], passEnv: fileConfig['passEnv'] }).filter(([, value]) => value !== undefined))
  const environment = checked(checkEnvironment, candidate, file, 'env/passEnv')
  const problem = environmentSettingsProblem(environment)
  if (problem !== undefined) throw configError(file, 'env/passEnv', problem)
  return environment
}

function parseHttpTools(section: unknown, file: string): HttpToolDefinition[] {
  if (section === undefined) return []
  if (!Array.isArray(section)) throw configError(file, 'tools', 'must be an array of tool definitions')
  const seen = new Set<string>()
  return section.map((candidate: unknown, index) => {
    const entry = `tools[${index}]${nameSuffix(candidate)}`
    const definition = parseHttpToolDefinition(candidate, file, entry)
    if (seen.has(definition.name)) throw configError(file, entry, `the name ${definition.name} is used by an earlier entry`)
    seen.add(definition.name)
    return definition
  })
}

/**
 * One HTTP tool definition, checked against its schema and {@link httpToolProblem}.
 * @throws ToolexecError CONF_ERR_TOOLS naming `file`, `entry` and the reason
 */
export function parseHttpToolDefinition(candidate: unknown, file: string, entry: string): HttpToolDefinition {
  const definition = checked(checkHttpTool, candidate, file, entry)
  const problem = httpToolProblem(definition)
  if (problem !== undefined) throw configError(file, entry, problem)
  return definition
}

function parseMcpServers(section: unknown, file: string): McpServerEntry[] {
  if (section === undefined) return []
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw configError(file, 'mcpServers', 'must be an object mapping server names to {command, args?, env?, timeoutMs?}')
  }
  return Object.entries(section).map(([name, candidate]: [string, unknown]) => {
    const entry = `mcpServers.${name}`
    if (!SERVER_NAME.test(name)) {
      throw configError(file, entry, 'a server name is 1 to 64 letters, digits, `_` or `-`, without `__` (tools are named mcp__<server>__<tool>)')
    }
    const server = checked(checkMcpServer, candidate, file, entry)
    const problem = environmentSettingsProblem(server)
    if (problem !== undefined) throw configError(file, entry, problem)
    return { ...server, name }
  })
}

function checked<T extends TSchema>(check: TypeCheck<T>, candidate: unknown, file: string, entry: string): T['static'] {
  if (check.Check(candidate)) return candidate
  const first = check.Errors(candidate).First()
  const where = first === undefined || first.path === '' ? '' : `${first.path.slice(1).replace(/\//g, '.')}: `
  throw configError(file, entry, `${where}${first?.message ?? 'invalid entry'}`)
}

function nameSuffix(candidate: unknown): string {
  const name = typeof candidate === 'object' && candidate !== null ? (candidate as { name?: unknown }).name : undefined
  return typeof name === 'string' ? ` (${name})` : ''
}

function configError(file: string, entry: string, reason: string): ToolexecError {
  return new ToolexecError('CONF_ERR_TOOLS', [file, entry, reason], { context: { file, entry, reason } })
}
