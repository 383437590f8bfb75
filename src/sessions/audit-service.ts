/**
 * @module The audit log as GET /audit reads it: oldest first, a page at a time, filtered. A
 * principal limited to sessions or workspaces reads only the entries of the sessions it sees
 * (not those of no session: keys, rules, tools), so its pages may hold fewer than asked.
 */
import { isLimited, type Principal } from '../contracts/access.js'
import type { AuditEntry, AuditPage, AuditQuery } from '../contracts/audit.js'
import type { AuditRecord, Store } from '../contracts/store.js'
import type { SessionAccess } from './session-access.js'

export const DEFAULT_AUDIT_PAGE = 100

export class AuditService {
  readonly #store: Pick<Store, 'audit'>
  readonly #access: SessionAccess

  constructor(store: Pick<Store, 'audit'>, access: SessionAccess) {
    this.#store = store
    this.#access = access
  }

  async page(by: Principal, query: Partial<AuditQuery>): Promise<AuditPage> {
    const limit = query.limit ?? DEFAULT_AUDIT_PAGE
    const records = await this.#store.audit.page({ ...query, after: query.after ?? 0, limit, since: instant(query.since), until: instant(query.until) })
    const next = records.length === limit ? (records.at(-1)?.seq ?? null) : null
    return { entries: (await this.#visible(by, records)).map(entryView), next }
  }

  async #visible(by: Principal, records: readonly AuditRecord[]): Promise<AuditRecord[]> {
    if (!isLimited(by.limits)) return [...records]
    const ofSessions = records.filter((record) => record.sessionId !== null)
    return this.#access.filter(by, ofSessions, (record) => record.sessionId as string)
  }
}

/** Entries are stamped by toISOString: a time with another offset is compared in the same form. */
function instant(time: string | undefined): string | undefined {
  return time === undefined ? undefined : new Date(time).toISOString()
}

function entryView(record: AuditRecord): AuditEntry {
  const { detailJson, ...rest } = record
  return { ...rest, kind: rest.kind as AuditEntry['kind'], actor: { ...rest.actor }, detail: JSON.parse(detailJson) as Record<string, unknown> }
}
