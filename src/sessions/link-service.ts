/**
 * @module Short-lived links: a token for one session and one purpose (watch, or watch and
 * decide) that expires, for a console opened on a phone. A link is an API key limited to its
 * session, with the purpose's scopes and an expiry, stored in the keys' table under an id of
 * its own (`link_...`): it is checked, expired and revoked on every server exactly as a key
 * is, and it is never wider than the key minting it.
 */
import { randomUUID } from 'node:crypto'
import type { Principal, Scope } from '../contracts/access.js'
import { actorOf } from '../contracts/audit.js'
import { ToolexecError } from '../contracts/errors.js'
import { DEFAULT_LINK_SECONDS, LINK_SCOPES, type CreatedLink, type CreateLinkBody, type LinkPurpose, type SessionLink } from '../contracts/links.js'
import type { KeyRecord, Store } from '../contracts/store.js'
import { isLinkId, LINK_ID_PREFIX, newSecret, secretHashOf } from './key-service.js'

export class LinkService {
  readonly #store: Pick<Store, 'keys' | 'commit'>
  readonly #now: () => Date

  constructor(store: Pick<Store, 'keys' | 'commit'>, now: () => Date = () => new Date()) {
    this.#store = store
    this.#now = now
  }

  /** 403 API_ERR_KEY_TOO_WIDE when `by` lacks a scope of the purpose; the expiry never passes `by`'s. */
  async mint(by: Principal, sessionId: string, body: CreateLinkBody): Promise<CreatedLink> {
    const scopes: Scope[] = [...LINK_SCOPES[body.purpose]]
    const missing = scopes.filter((scope) => !by.scopes.has(scope))
    if (missing.length > 0) throw new ToolexecError('API_ERR_KEY_TOO_WIDE', [`the link would have the scope ${missing.join(', ')}, which the minting key does not`])
    const now = this.#now()
    const asked = now.getTime() + (body.expiresInSeconds ?? DEFAULT_LINK_SECONDS) * 1000
    const expiresAt = new Date(by.expiresAt === null ? asked : Math.min(asked, Date.parse(by.expiresAt))).toISOString()
    const secret = newSecret()
    const record: Omit<KeyRecord, 'revokedAt'> = {
      id: `${LINK_ID_PREFIX}${randomUUID()}`,
      name: `${body.purpose} link to session ${sessionId}`,
      secretHash: secretHashOf(secret),
      role: null,
      scopes,
      sessions: [sessionId],
      workspaces: null,
      expiresAt,
      createdAt: now.toISOString(),
      createdBy: by.id,
    }
    await this.#store.commit((unit) => {
      unit.keys.insert(record)
      const detail = { keyId: record.id, name: record.name, scopes: record.scopes, sessions: record.sessions, expiresAt: record.expiresAt }
      unit.audit.append({ at: record.createdAt, kind: 'key.minted', actor: actorOf(by), sessionId, detail })
    })
    const consolePath = `/#/sessions/${encodeURIComponent(sessionId)}?token=${encodeURIComponent(secret)}`
    return { link: linkView(record, sessionId, body.purpose), secret, consolePath }
  }

  /** At once, on every server. A link of another session, revoked already, or that `by` did not mint (unless `by` is the administrator) is a 404. */
  async revoke(by: Principal, sessionId: string, linkId: string): Promise<void> {
    const link = isLinkId(linkId) ? await this.#store.keys.get(linkId) : undefined
    const mayRevoke = by.kind === 'admin' || by.kind === 'local' || link?.createdBy === by.id
    if (link === undefined || link.revokedAt !== null || link.sessions?.length !== 1 || link.sessions[0] !== sessionId || !mayRevoke) {
      throw new ToolexecError('API_ERR_LINK_NOT_FOUND', [sessionId, linkId])
    }
    const at = this.#now().toISOString()
    await this.#store.commit((unit) => {
      unit.keys.revoke(linkId, at)
      unit.audit.append({ at, kind: 'key.revoked', actor: actorOf(by), sessionId, detail: { keyId: linkId, name: link.name } })
    })
  }
}

function linkView(record: Omit<KeyRecord, 'revokedAt'>, sessionId: string, purpose: LinkPurpose): SessionLink {
  return { id: record.id, sessionId, purpose, expiresAt: record.expiresAt ?? '', createdAt: record.createdAt, createdBy: record.createdBy }
}
