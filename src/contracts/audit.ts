/**
 * @module The audit log's entries: what a person or the server decided about approvals, keys,
 * rules, tools and sessions, appended in the unit of work of the change each records and
 * chained by hash (src/storage/audit-chain.ts), with the query GET /audit takes.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { Principal } from './access.js'

export const AUDIT_KINDS = ['approval.answered', 'approval.decided', 'key.minted', 'key.revoked', 'rule.removed', 'tool.added', 'tool.removed', 'session.deleted'] as const
export type AuditKind = (typeof AUDIT_KINDS)[number]

/**
 * Who did it: a key (its id and name), `admin` (TOOLEXEC_TOKEN), `local` (no token), or
 * `server` for a decision nobody made, its name the reason (timeout, abort, hook, broker).
 */
export interface AuditActor {
  readonly id: string
  readonly name: string
}

export const actorOf = (principal: Principal): AuditActor => ({ id: principal.id, name: principal.name })

export const serverActor = (reason: string): AuditActor => ({ id: 'server', name: reason })

/** An entry as a change appends it: the store gives it its seq and chains it. */
export interface NewAuditEntry {
  readonly at: string
  readonly kind: AuditKind
  readonly actor: AuditActor
  readonly sessionId: string | null
  readonly detail: Readonly<Record<string, unknown>>
}

export const AuditEntrySchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1, description: 'Its place in the log: 1, 2, 3, ... with no gaps' }),
    at: Type.String({ description: 'When the change was made (ISO 8601)' }),
    kind: Type.Union(
      AUDIT_KINDS.map((kind) => Type.Literal(kind)),
      { description: 'What was done' },
    ),
    actor: Type.Object({ id: Type.String(), name: Type.String() }, { description: 'A key (its id and name), `admin` (TOOLEXEC_TOKEN), `local` (no token), or `server` with the reason as its name' }),
    sessionId: Type.Union([Type.String(), Type.Null()], { description: 'The session it concerns, which may since have been deleted' }),
    detail: Type.Record(Type.String(), Type.Unknown(), { description: 'What the kind of entry records (see docs/api.md)' }),
    prevHash: Type.String({ description: 'The hash of the entry before (64 zeros for the first)' }),
    hash: Type.String({ description: "SHA-256 (hex) of prevHash, a newline, seq, a newline and the entry's canonical JSON" }),
  },
  { $id: 'AuditEntry' },
)
export type AuditEntry = Static<typeof AuditEntrySchema>

const Time = (description: string) => Type.String({ format: 'date-time', description })

export const AuditQuerySchema = Type.Object(
  {
    after: Type.Optional(Type.Integer({ minimum: 0, description: 'Entries after this seq (the `next` of the previous page); 0 when absent' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Entries per page, 1 to 1000 (100 when absent)' })),
    kind: Type.Optional(Type.Union(AUDIT_KINDS.map((kind) => Type.Literal(kind)))),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'An actor id: a key id, `admin`, `local` or `server`' })),
    sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    since: Type.Optional(Time('Entries at or after this time')),
    until: Type.Optional(Time('Entries before this time')),
  },
  { additionalProperties: false },
)

/** What GET /audit selects: oldest first, after the seq `after`. */
export interface AuditQuery {
  readonly after: number
  readonly limit: number
  readonly kind?: string | undefined
  readonly actor?: string | undefined
  readonly sessionId?: string | undefined
  /** At or after this time (ISO 8601, compared as text). */
  readonly since?: string | undefined
  /** Before this time. */
  readonly until?: string | undefined
}

export const AuditPageSchema = Type.Object(
  {
    entries: Type.Array(AuditEntrySchema),
    next: Type.Union([Type.Integer(), Type.Null()], { description: 'The `after` of the next page; null when this page reached the end of the log' }),
  },
  { $id: 'AuditPage' },
)
export type AuditPage = Static<typeof AuditPageSchema>
