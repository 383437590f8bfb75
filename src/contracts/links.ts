/** @module The bodies and replies of the short-lived link routes (POST and DELETE /sessions/{id}/links). */
import { Type, type Static } from '@sinclair/typebox'
import type { Scope } from './access.js'

/** What a link may do, by purpose: watch the session, or watch it and decide its approvals. */
export const LINK_SCOPES = {
  watch: ['sessions:read', 'events:read'],
  decide: ['sessions:read', 'events:read', 'approvals:decide'],
} as const satisfies Record<string, readonly Scope[]>

export type LinkPurpose = keyof typeof LINK_SCOPES

export const DEFAULT_LINK_SECONDS = 15 * 60
export const MAX_LINK_SECONDS = 24 * 60 * 60

const PurposeSchema = Type.Union([Type.Literal('watch'), Type.Literal('decide')], {
  description: '`watch`: read the session and stream its events; `decide`: that, and decide its approvals',
})

export const CreateLinkBodySchema = Type.Object(
  {
    purpose: PurposeSchema,
    expiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LINK_SECONDS,
        description: `How long the link works: ${DEFAULT_LINK_SECONDS} s (15 min) when absent, at most 24 h, never past the minting key's expiry`,
      }),
    ),
  },
  { $id: 'CreateLinkBody', additionalProperties: false },
)
export type CreateLinkBody = Static<typeof CreateLinkBodySchema>

export const SessionLinkSchema = Type.Object(
  {
    id: Type.String({ description: 'Names the link for DELETE /sessions/{id}/links/{linkId}; not a secret' }),
    sessionId: Type.String(),
    purpose: PurposeSchema,
    expiresAt: Type.String(),
    createdAt: Type.String(),
    createdBy: Type.String({ description: 'The id of the key that minted it, or `admin` for TOOLEXEC_TOKEN' }),
  },
  { $id: 'SessionLink', description: 'A token for one session and one purpose that expires; kept, like a key, only as a hash' },
)
export type SessionLink = Static<typeof SessionLinkSchema>

export const CreatedLinkSchema = Type.Object(
  {
    link: SessionLinkSchema,
    secret: Type.String({ description: 'The bearer token (`txk_...`), shown in this reply only' }),
    consolePath: Type.String({ description: "The console's page of the session with the token: append it to the server's address. The console keeps the token and drops it from the address" }),
  },
  { $id: 'CreatedLink' },
)
export type CreatedLink = Static<typeof CreatedLinkSchema>
