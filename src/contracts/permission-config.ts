/** @module The `permissions` section of the config file. */
import { Type, type Static } from '@sinclair/typebox'
import { PermissionModeSchema } from './api.js'

const RuleList = Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: 10_000 })

export const PermissionsConfigSchema = Type.Object(
  {
    defaultMode: Type.Optional(PermissionModeSchema),
    allow: Type.Optional(RuleList),
    ask: Type.Optional(RuleList),
    deny: Type.Optional(RuleList),
    /** Calls these rules match are under four eyes in every session: the key that scheduled one cannot decide its approval. */
    fourEyes: Type.Optional(RuleList),
    /** Directory whose Markdown files are memory (A9); default `<data dir>/memory`. */
    memoryDir: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
)
export type PermissionsConfig = Static<typeof PermissionsConfigSchema>
