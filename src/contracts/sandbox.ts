/** @module Sandbox settings of Bash commands, in the config file and per session (POST /sessions). */
import { Type, type Static } from '@sinclair/typebox'

const AbsolutePath = Type.String({ minLength: 2, maxLength: 4096, pattern: '^/[^\\u0000]*$', description: 'An absolute path' })
const PathList = Type.Array(AbsolutePath, { maxItems: 64 })

export const SandboxSettingsSchema = Type.Object(
  {
    readOnlyPaths: Type.Optional({ ...PathList, description: 'More paths a command may read; a missing one is skipped' }),
    writablePaths: Type.Optional({ ...PathList, description: 'More paths a command may write once allowed (read-only for one run unasked as read-only)' }),
    network: Type.Optional(Type.Boolean({ description: 'Network access for commands (default false)' })),
  },
  { $id: 'SandboxSettings', additionalProperties: false },
)
export type SandboxSettingsBody = Static<typeof SandboxSettingsSchema>
