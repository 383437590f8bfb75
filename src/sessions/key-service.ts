/**
 * @module API keys: minted (never with more than the minting principal has), listed without
 * their secrets, revoked, and turned back into the principal a request carries. A secret is
 * `txk_` and 32 random bytes (base64url); only its SHA-256 is stored. The secret has the
 * entropy of a key, so a fast hash suffices, and looking it up by its hash leaks nothing of it.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { actorOf } from '../contracts/audit.js'
import { isScope, ROLES, type AccessLimits, type Principal, type RoleName, type Scope } from '../contracts/access.js'
import type { ApiKey, CreatedKey, CreateKeyBody } from '../contracts/api-keys.js'
import { ToolexecError } from '../contracts/errors.js'
import type { KeyRecord, Store } from '../contracts/store.js'
import { workspaceWithin } from './session-access.js'

/** What a secret scanner looks for: a key leaked in a commit or a log is found by its prefix. */
export const KEY_PREFIX = 'txk_'
const SECRET_BYTES = 32

/** A short-lived link (link-service.ts) is a key with an id of this prefix. */
export const LINK_ID_PREFIX = 'link_'
export const isLinkId = (id: string): boolean => id.startsWith(LINK_ID_PREFIX)
const KEY_ID_PREFIX = 'key_'
/** Whether a principal id (a key's `createdBy`) names a key or a link, not the administrator or a token. */
const isKeyId = (id: string): boolean => id.startsWith(KEY_ID_PREFIX) || isLinkId(id)
/** Past this many keys up a chain, a key is refused: chains are a few keys long; a loop must not spin. */
const MAX_MINTING_DEPTH = 32

export const secretHashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex')

/** A new key's or link's secret: the prefix and 32 random bytes. */
export const newSecret = (): string => `${KEY_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`

export class KeyService {
  readonly #store: Pick<Store, 'keys' | 'commit'>
  readonly #now: () => Date

  constructor(store: Pick<Store, 'keys' | 'commit'>, now: () => Date = () => new Date()) {
    this.#store = store
    this.#now = now
  }

  /** The principal of a key's secret; undefined for a secret of no key, or of one revoked or expired. */
  async principalOf(secret: string): Promise<Principal | undefined> {
    if (!secret.startsWith(KEY_PREFIX)) return undefined
    const key = await this.#store.keys.bySecretHash(secretHashOf(secret))
    if (key === undefined || !this.#works(key) || !(await this.#mintersWork(key))) return undefined
    const principal: Principal = { id: key.id, name: key.name, kind: 'key', role: roleOf(key), scopes: new Set(key.scopes), limits: limitsOf(key), expiresAt: key.expiresAt }
    return isLinkId(key.id) ? { ...principal, linkOf: key.createdBy } : principal
  }

  /** Refused (403 API_ERR_KEY_TOO_WIDE) when the new key would have a scope, a session, a workspace or a time `by` lacks. */
  async mint(by: Principal, body: CreateKeyBody): Promise<CreatedKey> {
    const scopes = scopesOf(body)
    const missing = scopes.filter((scope) => !by.scopes.has(scope))
    if (missing.length > 0) throw tooWide(`the scope ${missing.join(', ')}`)
    const limits = narrowed(by.limits, body)
    const expiresAt = this.#expiryOf(by, body.expiresAt)
    const secret = newSecret()
    const record: Omit<KeyRecord, 'revokedAt'> = {
      id: `${KEY_ID_PREFIX}${randomUUID()}`,
      name: body.name,
      secretHash: secretHashOf(secret),
      role: body.role ?? null,
      scopes,
      sessions: limits.sessions,
      workspaces: limits.workspaces,
      expiresAt,
      createdAt: this.#now().toISOString(),
      createdBy: by.id,
    }
    await this.#store.commit((unit) => {
      unit.keys.insert(record)
      const detail = { keyId: record.id, name: record.name, role: record.role, scopes: record.scopes, sessions: record.sessions, workspaces: record.workspaces, expiresAt: record.expiresAt }
      unit.audit.append({ at: record.createdAt, kind: 'key.minted', actor: actorOf(by), sessionId: null, detail })
    })
    return { key: keyView({ ...record, revokedAt: null }), secret }
  }

  /** The keys `by` could have minted, oldest first: every key for the administrator. */
  async list(by: Principal): Promise<ApiKey[]> {
    return (await this.#store.keys.list()).filter((key) => manages(by, key)).map(keyView)
  }

  /**
   * At once: the next request with it is refused, and with every key and link it minted, theirs
   * in turn (a leaked key cannot leave a key of its own behind). A key `by` could not have
   * minted is a 404 as one that does not exist.
   */
  async revoke(by: Principal, id: string): Promise<void> {
    const key = await this.#store.keys.get(id)
    if (key === undefined || !manages(by, key)) throw new ToolexecError('API_ERR_KEY_NOT_FOUND', [id])
    const minted = mintedBy(await this.#store.keys.list(), id).filter((child) => child.revokedAt === null)
    if (key.revokedAt !== null && minted.length === 0) return
    const at = this.#now().toISOString()
    const actor = actorOf(by)
    await this.#store.commit((unit) => {
      if (key.revokedAt === null) {
        unit.keys.revoke(id, at)
        unit.audit.append({ at, kind: 'key.revoked', actor, sessionId: null, detail: { keyId: id, name: key.name } })
      }
      for (const child of minted) {
        unit.keys.revoke(child.id, at)
        unit.audit.append({ at, kind: 'key.revoked', actor, sessionId: null, detail: { keyId: child.id, name: child.name, mintedBy: child.createdBy } })
      }
    })
  }

  #works(key: KeyRecord): boolean {
    return key.revokedAt === null && !this.#expired(key.expiresAt)
  }

  /**
   * Whether every key up the chain that minted `key` still works: one minted while its minter
   * was being revoked is refused all the same.
   */
  async #mintersWork(key: KeyRecord): Promise<boolean> {
    let minter = key.createdBy
    for (let depth = 0; isKeyId(minter); depth++) {
      const parent = depth < MAX_MINTING_DEPTH ? await this.#store.keys.get(minter) : undefined
      if (parent === undefined || !this.#works(parent)) return false
      minter = parent.createdBy
    }
    return true
  }

  #expired(expiresAt: string | null): boolean {
    return expiresAt !== null && Date.parse(expiresAt) <= this.#now().getTime()
  }

  /** The new key's expiry: the one asked for, never past the minting key's, which it inherits when none is asked for. */
  #expiryOf(by: Principal, asked: string | undefined): string | null {
    if (asked === undefined) return by.expiresAt
    const at = Date.parse(asked)
    if (Number.isNaN(at) || at <= this.#now().getTime()) throw new ToolexecError('API_ERR_VALIDATION', [`expiresAt must be a time in the future, not ${asked}`])
    if (by.expiresAt !== null && at > Date.parse(by.expiresAt)) throw tooWide(`a time past ${by.expiresAt}, when the minting key expires`)
    return new Date(at).toISOString()
  }
}

function scopesOf(body: CreateKeyBody): Scope[] {
  if ((body.role === undefined) === (body.scopes === undefined)) throw new ToolexecError('API_ERR_VALIDATION', ['give a key exactly one of role and scopes'])
  return body.role === undefined ? [...(body.scopes ?? [])].filter(isScope) : [...ROLES[body.role]]
}

/** The new key's limits: those asked for, within the minting principal's, whose own it inherits on a side it asks nothing of. */
function narrowed(limits: AccessLimits, body: CreateKeyBody): AccessLimits {
  const sessions = body.sessions ?? limits.sessions
  const outside = limits.sessions === null ? [] : (body.sessions ?? []).filter((id) => !limits.sessions?.includes(id))
  if (outside.length > 0) throw tooWide(`session ${outside.join(', ')}`)
  const workspaces = body.workspaces ?? limits.workspaces
  const wider = limits.workspaces === null ? [] : (body.workspaces ?? []).filter((path) => !limits.workspaces?.some((root) => workspaceWithin(root, path)))
  if (wider.length > 0) throw tooWide(`workspace ${wider.join(', ')}`)
  return { sessions: sessions === null ? null : [...sessions], workspaces: workspaces === null ? null : [...workspaces] }
}

/** Whether `by` could have minted the key: its scopes, limits and time are within `by`'s. */
function manages(by: Principal, key: KeyRecord): boolean {
  if (!key.scopes.every((scope) => by.scopes.has(scope))) return false
  if (by.expiresAt !== null && (key.expiresAt === null || key.expiresAt > by.expiresAt)) return false
  const { sessions, workspaces } = by.limits
  if (sessions !== null && (key.sessions === null || !key.sessions.every((id) => sessions.includes(id)))) return false
  return workspaces === null || (key.workspaces !== null && key.workspaces.every((path) => workspaces.some((root) => workspaceWithin(root, path))))
}

/** Every key and link minted by `id`, and by those in turn. */
function mintedBy(keys: readonly KeyRecord[], id: string): KeyRecord[] {
  const found: KeyRecord[] = []
  const minters = new Set([id])
  // Keys minted within one millisecond may be listed in either order: go round until none is added.
  for (let grew = true; grew;) {
    grew = false
    for (const key of keys) {
      if (!minters.has(key.createdBy) || minters.has(key.id)) continue
      found.push(key)
      minters.add(key.id)
      grew = true
    }
  }
  return found
}

/** The role the key was given; null for one given scopes (or a role this version no longer knows: its scopes are what count). */
function roleOf(key: KeyRecord): RoleName | null {
  return key.role !== null && Object.hasOwn(ROLES, key.role) ? (key.role as RoleName) : null
}

function limitsOf(key: KeyRecord): AccessLimits {
  return { sessions: key.sessions, workspaces: key.workspaces }
}

function keyView(key: KeyRecord): ApiKey {
  const { id, name, role, scopes, sessions, workspaces, expiresAt, createdAt, createdBy, revokedAt } = key
  return { id, name, role: role as ApiKey['role'], scopes: [...scopes], sessions: sessions && [...sessions], workspaces: workspaces && [...workspaces], expiresAt, createdAt, createdBy, revokedAt }
}

function tooWide(what: string): ToolexecError {
  return new ToolexecError('API_ERR_KEY_TOO_WIDE', [`the new key would have ${what}, which the minting key does not`])
}
