/** @module The `hooks` section of the config file (Claude Code's shape). */
import { Type, type Static } from '@sinclair/typebox'

export const CommandHookSchema = Type.Object(
  {
    type: Type.Literal('command'),
    command: Type.String({ minLength: 1 }),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    /** Claude Code's name for the limit, in seconds. */
    timeout: Type.Optional(Type.Number({ minimum: 0.001, maximum: 3600 })),
    failClosed: Type.Optional(Type.Boolean()),
    /** Fixed variables and names passed through, on top of the global ones (src/tools/command-environment.ts). */
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
    passEnv: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
)

export const HttpHookSchema = Type.Object(
  {
    type: Type.Literal('http'),
    url: Type.String({ pattern: '^https?://' }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    failClosed: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export const HookDefinitionSchema = Type.Union([CommandHookSchema, HttpHookSchema])

export const HookMatcherSchema = Type.Object(
  {
    matcher: Type.Optional(Type.String()),
    hooks: Type.Array(HookDefinitionSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
)

export const HooksConfigSchema = Type.Object(
  {
    PreToolUse: Type.Optional(Type.Array(HookMatcherSchema)),
    PermissionRequest: Type.Optional(Type.Array(HookMatcherSchema)),
    PostToolUse: Type.Optional(Type.Array(HookMatcherSchema)),
    PostToolUseFailure: Type.Optional(Type.Array(HookMatcherSchema)),
  },
  { additionalProperties: false },
)

export type CommandHookConfig = Static<typeof CommandHookSchema>
export type HttpHookConfig = Static<typeof HttpHookSchema>
export type HookDefinition = Static<typeof HookDefinitionSchema>
export type HooksConfig = Static<typeof HooksConfigSchema>
