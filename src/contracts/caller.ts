/** @module The reply of GET /me: who the credential of the request is, and what it may do. Never a secret. */
import { Type, type Static } from '@sinclair/typebox'
import { RoleSchema, ScopeSchema } from './access.js'

const Limit = (what: string) => Type.Union([Type.Array(Type.String()), Type.Null()], { description: `The ${what} it is limited to; null when not limited by them` })

export const CallerSchema = Type.Object(
  {
    id: Type.String({
      description:
        'The key id (`key_...`, `link_...` for a short-lived link), `jwt:<issuer>#<subject>` for a token of the identity provider, `admin` for TOOLEXEC_TOKEN, `local` when the server runs without a token',
    }),
    name: Type.String({ description: 'The name it was minted with; what a decision it makes is recorded under' }),
    kind: Type.Union([Type.Literal('admin'), Type.Literal('key'), Type.Literal('token'), Type.Literal('local')], {
      description:
        '`admin`: TOOLEXEC_TOKEN; `key`: an API key or a short-lived link; `token`: a JWT of the identity provider (TOOLEXEC_JWT_ISSUER); `local`: anyone on this machine, the server running without a token',
    }),
    role: Type.Union([RoleSchema, Type.Null()], {
      description: 'The role the key was given (or a token names in `toolexec_role`); null for a key given a list of scopes, the administrator and the local principal',
    }),
    scopes: Type.Array(ScopeSchema, { description: 'What it may do: each operation needs the scope its `security` lists' }),
    limits: Type.Object({ sessions: Limit('sessions'), workspaces: Limit('workspace paths') }),
    expiresAt: Type.Union([Type.String(), Type.Null()], { description: 'When it stops working; null when it does not expire' }),
  },
  { $id: 'Caller', description: 'The principal a request carries, as a client shows it (the console shows the name and role and offers only what the scopes allow)' },
)
export type Caller = Static<typeof CallerSchema>
