/**
 * @module Tools that come from outside the code: client-defined HTTP tools (the config file's
 * `tools` list and the body of `POST /tools`) and the MCP servers of `mcpServers`.
 */
import { Type, type Static } from '@sinclair/typebox'
import { SideEffectScopeSchema } from './flags.js'
import { ResultBudgetSchema, TimeoutPolicySchema } from './tool-entry.js'

/** What model APIs accept as a tool name. */
export const TOOL_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$'
/** One segment of `mcp__<server>__<tool>`: a double underscore would make the name ambiguous. */
export const MCP_SERVER_NAME_PATTERN = '^(?!.*__)[a-zA-Z0-9_-]{1,64}$'

/** A JSON Schema whose top level describes an object; its other keywords are the tool's own. */
export const JsonObjectSchemaSchema = Type.Unsafe<{ type: 'object'; [keyword: string]: unknown }>(
  Type.Object({ type: Type.Literal('object') }, { additionalProperties: true, description: 'JSON Schema of the input; its top level describes an object' }),
)

export const HttpToolDefinitionSchema = Type.Object(
  {
    name: Type.String({ pattern: TOOL_NAME_PATTERN, description: 'Letters, digits, `_` and `-`; must not start with `mcp__`' }),
    description: Type.String({ maxLength: 100_000 }),
    inputSchema: JsonObjectSchemaSchema,
    readOnly: Type.Optional(Type.Boolean({ description: 'Default false' })),
    destructive: Type.Optional(Type.Boolean({ description: 'Default false' })),
    concurrentSafe: Type.Optional(Type.Boolean({ description: 'Default: readOnly' })),
    sideEffectScope: Type.Optional(SideEffectScopeSchema),
    timeout: Type.Optional(TimeoutPolicySchema),
    resultBudget: Type.Optional(ResultBudgetSchema),
    url: Type.String({ minLength: 1, maxLength: 4096, description: 'http(s) URL the call is POSTed to as {callId, sessionId, input}' }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Sent with every call' })),
  },
  { $id: 'HttpToolDefinition', additionalProperties: false },
)
export type HttpToolDefinition = Static<typeof HttpToolDefinitionSchema>

export const McpServerConfigSchema = Type.Object(
  {
    /** Accepted for compatibility with other clients' files; stdio is the only transport. */
    type: Type.Optional(Type.Literal('stdio')),
    command: Type.String({ minLength: 1 }),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Fixed variables for this server, on top of the global ones' })),
    passEnv: Type.Optional(Type.Array(Type.String(), { description: "Names of the server's own variables this server also gets" })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
  },
  { $id: 'McpServerConfig', additionalProperties: false },
)
export type McpServerConfig = Static<typeof McpServerConfigSchema>

/**
 * The config file's top-level `env` and `passEnv`: what every Bash command, command hook and
 * MCP server gets besides the allow-listed variables (src/tools/command-environment.ts).
 */
export const EnvironmentConfigSchema = Type.Object({
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
  passEnv: Type.Optional(Type.Array(Type.String())),
})
export type EnvironmentConfig = Static<typeof EnvironmentConfigSchema>

/** One configured MCP server with its name (the key in `mcpServers`). */
export interface McpServerEntry extends McpServerConfig {
  readonly name: string
}
