/** @module The bodies and replies of the key routes (POST, GET and DELETE /keys). */
import { Type, type Static } from '@sinclair/typebox'
import { RoleSchema, ScopeSchema } from './access.js'
import { IdSchema } from './ids.js'

const NO_NUL = '^[^\\u0000]*$'

const SessionLimit = Type.Array(IdSchema, {
  minItems: 1,
  maxItems: 1000,
  uniqueItems: true,
  description: 'The key sees these sessions only (and those under `workspaces`); any other answers 404 as if it did not exist',
})
const WorkspaceLimit = Type.Array(Type.String({ minLength: 1, maxLength: 4096, pattern: '^/[^\\u0000]*$' }), {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: 'Absolute paths: the key sees the sessions whose workspace lies under one of them (and those of `sessions`), and creates sessions only there',
})
const Expiry = Type.String({ format: 'date-time', description: 'When the key stops working (ISO 8601); it never expires when absent, unless the minting key does' })

export const CreateKeyBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL, description: 'Who or what holds the key, for people reading lists and logs' }),
    role: Type.Optional(RoleSchema),
    scopes: Type.Optional(Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true, description: 'The scopes, when no `role` is given' })),
    expiresAt: Type.Optional(Expiry),
    sessions: Type.Optional(SessionLimit),
    workspaces: Type.Optional(WorkspaceLimit),
  },
  { $id: 'CreateKeyBody', additionalProperties: false, description: 'Exactly one of `role` and `scopes`. A key never gets a scope, a session, a workspace or a time its minting key lacks' },
)
export type CreateKeyBody = Static<typeof CreateKeyBodySchema>

export const ApiKeySchema = Type.Object(
  {
    id: Type.String({ description: 'Names the key in lists, logs and DELETE /keys/{id}; not a secret' }),
    name: Type.String(),
    role: Type.Union([RoleSchema, Type.Null()], { description: 'The role it was given, or null when it was given a list of scopes' }),
    scopes: Type.Array(ScopeSchema),
    sessions: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The sessions it is limited to; null when not limited by session' }),
    workspaces: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The workspace paths it is limited to; null when not limited by workspace' }),
    expiresAt: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    createdBy: Type.String({ description: 'The id of the key that minted it, or `admin` for TOOLEXEC_TOKEN' }),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ApiKey', description: 'A key as listed: never its secret, which is kept only as a hash' },
)
export type ApiKey = Static<typeof ApiKeySchema>

export const CreatedKeySchema = Type.Object(
  { key: ApiKeySchema, secret: Type.String({ description: 'The bearer token: `txk_` and 43 characters. Shown this once; it cannot be read back' }) },
  { $id: 'CreatedKey' },
)
export type CreatedKey = Static<typeof CreatedKeySchema>

export const ApiKeyListSchema = Type.Object({ keys: Type.Array(ApiKeySchema) }, { $id: 'ApiKeyList' })
