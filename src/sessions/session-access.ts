/**
 * @module Which sessions a principal sees. A key limited to sessions sees those; one limited to
 * workspaces sees the sessions whose workspace lies under one of its paths, where the path is
 * and where it really is (a symlink out of the path is out); one limited both ways sees the
 * sessions that pass both. A session it does not see answers as one that does not exist.
 */
import { realpathSync } from 'node:fs'
import path from 'node:path'
import { isLimited, type AccessLimits, type Principal } from '../contracts/access.js'
import type { ProjectRuleRecord, SessionRecord, Store } from '../contracts/store.js'
import { isWithin } from '../paths/locations.js'

type SessionKey = Pick<SessionRecord, 'workspace'> & { readonly id: string | undefined }

/** Whether the limits let their holder see (or create) the session. */
export function limitsCover(limits: AccessLimits, session: SessionKey): boolean {
  if (limits.sessions !== null && (session.id === undefined || !limits.sessions.includes(session.id))) return false
  return limits.workspaces === null || limits.workspaces.some((root) => workspaceWithin(root, session.workspace))
}

/** `workspace` lies under `root` as written and where both really are. */
export function workspaceWithin(root: string, workspace: string): boolean {
  return isWithin(path.resolve(root), path.resolve(workspace)) && isWithin(realOrResolved(root), realOrResolved(workspace))
}

function realOrResolved(dir: string): string {
  try {
    return realpathSync(dir)
  } catch {
    return path.resolve(dir)
  }
}

export class SessionAccess {
  readonly #store: Pick<Store, 'sessions'>

  constructor(store: Pick<Store, 'sessions'>) {
    this.#store = store
  }

  sees(principal: Principal, session: SessionRecord): boolean {
    return limitsCover(principal.limits, session)
  }

  /** False for a session that does not exist, as for one the principal may not see. */
  async seesId(principal: Principal, sessionId: string): Promise<boolean> {
    if (!isLimited(principal.limits)) return true
    if (principal.limits.sessions !== null && !principal.limits.sessions.includes(sessionId)) return false
    const session = await this.#store.sessions.get(sessionId)
    return session !== undefined && this.sees(principal, session)
  }

  /** The items whose session the principal sees, in their order. */
  async filter<T>(principal: Principal, items: readonly T[], sessionOf: (item: T) => string): Promise<T[]> {
    if (!isLimited(principal.limits)) return [...items]
    const seen = new Map<string, boolean>()
    const kept: T[] = []
    for (const item of items) {
      const sessionId = sessionOf(item)
      let visible = seen.get(sessionId)
      if (visible === undefined) {
        visible = await this.seesId(principal, sessionId)
        seen.set(sessionId, visible)
      }
      if (visible) kept.push(item)
    }
    return kept
  }

  /**
   * The project rules of the workspaces the principal works in: those of its sessions, or, when
   * it is limited to workspaces only, those under its paths.
   */
  async rules(principal: Principal, rules: readonly ProjectRuleRecord[]): Promise<ProjectRuleRecord[]> {
    const { sessions, workspaces } = principal.limits
    if (sessions === null) return rules.filter((rule) => workspaces === null || workspaces.some((root) => workspaceWithin(root, rule.workspace)))
    const own = new Set<string>()
    for (const id of sessions) {
      const session = await this.#store.sessions.get(id)
      if (session !== undefined && this.sees(principal, session)) own.add(session.workspace)
    }
    return rules.filter((rule) => own.has(rule.workspace))
  }
}
