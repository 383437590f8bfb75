/** @module Sessions: create, look up, list, abort the turn, delete, answer approvals, read history. */
import { isDeepStrictEqual } from 'node:util'
import { actorOf, type AuditActor } from '../contracts/audit.js'
import type {
  CreateSessionBody,
  CreateSessionFields,
  HistoryEntry,
  PermissionAnswerBody,
  PermissionRequestRecord,
  Session,
  SessionList,
  SessionListQuery,
  UpdateSessionBody,
} from '../contracts/api.js'
import { ToolexecError } from '../contracts/errors.js'
import type { PermissionMode } from '../contracts/ports.js'
import { StoreConflictError, type ArtifactRecord, type PermissionRow, type SessionRecord, type Store } from '../contracts/store.js'
import { LOCAL, type Principal } from '../contracts/access.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import type { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'
import { recordedAnswer, type SessionPermissionBroker } from './session-broker.js'
import { alreadyDecided, assertFourEyes, assertSameInput, chosenRules, sessionDeleted, type FourEyesRuleOf } from './decision-checks.js'
import { historyView, permissionView, sessionView } from './views.js'
import { resolveWorkspace } from './session-workspace.js'
import type { Claim } from './session-ownership.js'

export const TURN_ABORTED = 'Turn aborted by the client'
const DEFAULT_PAGE = 50
const MAX_PAGE = 500
const everySession = (): boolean => true

/** A schedule for a session that does not exist, and that the request does not ask to create. */
export function unknownSessionOfSchedule(id: string): ToolexecError {
  return new ToolexecError('API_ERR_SESSION_NOT_FOUND', [id, '; create it first with POST /sessions, or let this request create it with "createSession": {"workspace": ...}'])
}

/** What the session service reads and changes. */
export interface SessionParts {
  readonly store: Pick<Store, 'sessions' | 'schedules' | 'approvals' | 'artifacts' | 'commit'>
  readonly journal: EventJournal
  readonly live: LiveSessions
  readonly broker: SessionPermissionBroker
  readonly backgroundTasks: BackgroundTaskRegistry
  /** The entry of a tool by name, for how its history is shown. */
  readonly toolEntry: (name: string) => ToolEntry | undefined
  /** Deletes the session with everything kept of it (session-deletion.ts). */
  readonly deleteSession: (sessionId: string, by: AuditActor) => Promise<void>
  /** Takes the session's lease for this server (on a database several servers share), or names the server that holds it. */
  readonly claim: (sessionId: string) => Promise<Claim>
  readonly defaultWorkspace: string
  readonly defaultPermissionMode: PermissionMode
  /** The server's fourEyes rule matching a call, if any: its approval needs a key other than the one that scheduled it. */
  readonly fourEyesRule?: FourEyesRuleOf | undefined
}

export class SessionService {
  readonly #parts: SessionParts

  constructor(parts: SessionParts) {
    this.#parts = parts
  }

  async create(body: CreateSessionBody): Promise<Session> {
    const id = body.id ?? `ses_${crypto.randomUUID()}`
    const exists = (): ToolexecError => new ToolexecError('API_ERR_SESSION_EXISTS', [id])
    if ((await this.#parts.store.sessions.get(id)) !== undefined) throw exists()
    const record = this.newRecord(id, body)
    // Held by another server: it was created there since it was looked up.
    if (!(await this.#parts.claim(id)).local) throw exists()
    try {
      await this.#parts.store.commit((unit) => unit.sessions.insert(record))
    } catch (error) {
      // Another request created it since it was looked up.
      if (error instanceof StoreConflictError) throw exists()
      throw error
    }
    return (await this.view(id)) as Session
  }

  /**
   * The session a schedule runs in: the stored one, or, when the request asks to create it, a
   * new record not yet stored (`isNew`). An unknown id is never a session made up with
   * defaults: a mistyped id would run the calls in the server's default workspace.
   */
  async forSchedule(id: string, create: CreateSessionFields | undefined): Promise<{ readonly session: SessionRecord; readonly isNew: boolean }> {
    const stored = await this.#parts.store.sessions.get(id)
    if (stored === undefined) {
      if (create === undefined) throw unknownSessionOfSchedule(id)
      return { session: this.newRecord(id, create), isNew: true }
    }
    if (create !== undefined) this.assertSame(stored, create)
    return { session: stored, isNew: false }
  }

  /** A retried createSession is accepted; one asking for other fields than the session has is refused. */
  assertSame(stored: SessionRecord, create: CreateSessionFields): void {
    const wanted = this.newRecord(stored.id, create)
    const differing = (Object.keys(create) as (keyof CreateSessionFields)[]).filter((field) => !isDeepStrictEqual(wanted[field] ?? null, stored[field] ?? null))
    if (differing.length === 0) return
    const fields = differing.map((field) => `${field} ${JSON.stringify(stored[field] ?? null)}, not ${JSON.stringify(wanted[field] ?? null)}`).join(', ')
    throw new ToolexecError('API_ERR_SESSION_DIFFERS', [stored.id, fields], { context: { fields: differing } })
  }

  /** A record with defaults for `id`, not yet stored; refused when its workspace is in the server's install. */
  newRecord(id: string, body: CreateSessionBody = {}): SessionRecord {
    return {
      id,
      workspace: resolveWorkspace(this.#parts.defaultWorkspace, body.workspace),
      permissionMode: body.permissionMode ?? this.#parts.defaultPermissionMode,
      interactive: body.interactive ?? true,
      permissionTimeoutMs: body.permissionTimeoutMs ?? null,
      sandbox: body.sandbox,
      ...(body.fourEyes === true ? { fourEyes: true } : {}),
      ...(body.label === undefined ? {} : { label: body.label }),
      createdAt: new Date().toISOString(),
    }
  }

  /** Names the session, or takes its name away (null). */
  async update(id: string, body: UpdateSessionBody): Promise<Session> {
    await this.get(id)
    await this.#parts.store.commit((unit) => unit.sessions.setLabel(id, body.label))
    const view = await this.view(id)
    if (view === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [id, ''])
    return view
  }

  async get(id: string): Promise<SessionRecord> {
    const record = await this.#parts.store.sessions.get(id)
    if (record === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [id, ''])
    return record
  }

  async view(id: string): Promise<Session | undefined> {
    const record = await this.#parts.store.sessions.get(id)
    if (record === undefined) return undefined
    const running = (this.#parts.live.peek(id)?.running ?? 0) > 0
    const [counts, lastSeq] = await Promise.all([this.#parts.store.sessions.counts(id), this.#parts.journal.lastSeq(id)])
    return sessionView(record, counts, running, lastSeq)
  }

  /** Newest first, a page at a time; `before` is the `next` of the previous page. With `sees`, only the sessions it lets through, as if no other existed. */
  async list(query: SessionListQuery, sees: (session: SessionRecord) => boolean = everySession): Promise<SessionList> {
    const limit = query.limit ?? DEFAULT_PAGE
    if (limit > MAX_PAGE) throw new ToolexecError('API_ERR_VALIDATION', [`limit must be at most ${MAX_PAGE}, not ${limit}`])
    const before = query.before === undefined ? undefined : await this.get(query.before)
    if (before !== undefined && !sees(before)) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [before.id, ''])
    const page = await this.#visiblePage(before, limit + 1, sees)
    const views = await Promise.all(page.slice(0, limit).map((record) => this.view(record.id)))
    // A session deleted since the page was read is left out.
    const sessions = views.filter((view): view is Session => view !== undefined)
    const last = sessions.at(-1)
    return page.length > limit && last !== undefined ? { sessions, next: last.id } : { sessions }
  }

  /** Up to `size` sessions `sees` lets through, created before `before`: pages are read until it has them or none are left. */
  async #visiblePage(before: SessionRecord | undefined, size: number, sees: (session: SessionRecord) => boolean): Promise<SessionRecord[]> {
    const kept: SessionRecord[] = []
    let after = before
    for (;;) {
      const page = await this.#parts.store.sessions.page(after, size)
      kept.push(...page.filter(sees))
      after = page.at(-1)
      if (kept.length >= size || page.length < size) return kept.slice(0, size)
    }
  }

  /**
   * R23: running calls end cancelled, pending approvals resolve as abort, queued schedules end
   * cancelled. The abort is stored with the schedules before it is acknowledged: a crash before
   * they end must not let a restart run them.
   */
  async abort(id: string): Promise<{ sessionId: string; aborted: boolean }> {
    await this.get(id)
    // Queued first, so it commits before any schedule end the abort brings about. On a full
    // disk the abort still happens; its record is written when space returns.
    const recorded = this.#parts.journal.writeOrKeep(id, (unit, at) => unit.schedules.markAborted(id, at))
    const live = this.#parts.live.get(id)
    const previous = live.controller
    live.controller = new AbortController()
    previous.abort(new ToolexecError('EXEC_ERR_CANCELLED', [], { context: { reason: TURN_ABORTED } }))
    this.#parts.backgroundTasks.cancelSession(id, TURN_ABORTED)
    await recorded
    return { sessionId: id, aborted: true }
  }

  /** Deletes the session with everything kept of it; refused (409) while it has work going on. */
  delete(id: string, by: AuditActor): Promise<void> {
    return this.#parts.deleteSession(id, by)
  }

  /** An artifact the session's calls recorded. */
  async artifact(sessionId: string, artifactId: string): Promise<ArtifactRecord> {
    const artifact = await this.#parts.store.artifacts.get(sessionId, artifactId)
    if (artifact === undefined) throw new ToolexecError('API_ERR_ARTIFACT_NOT_FOUND', [artifactId, sessionId])
    return artifact
  }

  /** The artifact, or undefined when the session recorded none of that id. */
  findArtifact(sessionId: string, artifactId: string): Promise<ArtifactRecord | undefined> {
    return this.#parts.store.artifacts.get(sessionId, artifactId)
  }

  /**
   * A person's decision, valid once (a second, even the same, is a 409), for the input the
   * request shows when `inputHash` is given, and never by the scheduling key under four eyes.
   */
  async answerPermission(id: string, body: PermissionAnswerBody, principal: Principal = LOCAL): Promise<PermissionRequestRecord> {
    const row = await this.#openRequest(id, body.sessionId)
    assertSameInput(row, body.inputHash)
    const rules = chosenRules(row, body)
    await assertFourEyes(this.#parts.store, row, principal, this.#parts.fourEyesRule)
    const answer = {
      decision: body.decision,
      decidedBy: 'client' as const,
      message: body.message,
      scope: body.scope ?? 'once',
      ...(rules === undefined ? {} : { rules }),
      decider: { id: principal.id, name: principal.name },
    }
    const outcome = await this.#parts.broker.answer(id, answer, actorOf(principal), body.sessionId)
    if (outcome.kind === 'unknown') throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
    if (outcome.kind !== 'settled') throw alreadyDecided(id, outcome.answer)
    const decided = await this.#parts.store.approvals.get(id)
    if (decided === undefined) throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
    // The stored row may lag the live decision by a tick; show the decision that holds.
    const view = permissionView(decided)
    if (view.status !== 'pending') return view
    return { ...view, status: answer.decision, decidedBy: answer.decidedBy, deciderId: principal.id, deciderName: principal.name }
  }

  /** The request, still pending; 404 for one that never was (in this session), 409 for one decided or closed. */
  async #openRequest(id: string, sessionId: string | undefined): Promise<PermissionRow> {
    const row = await this.#parts.store.approvals.get(id)
    if (row === undefined || (sessionId !== undefined && row.sessionId !== sessionId)) {
      const deletedFrom = row === undefined ? await this.#parts.store.approvals.closedSession(id) : undefined
      if (deletedFrom !== undefined && (sessionId === undefined || sessionId === deletedFrom)) throw sessionDeleted(id)
      throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
    }
    if (row.status !== 'pending') throw alreadyDecided(id, recordedAnswer(row))
    return row
  }

  async pendingPermissions(sessionId?: string): Promise<PermissionRequestRecord[]> {
    return (await this.#parts.store.approvals.pending(sessionId)).map(permissionView)
  }

  async history(id: string): Promise<HistoryEntry[]> {
    await this.get(id)
    const entries: HistoryEntry[] = []
    for (const row of await this.#parts.store.schedules.history(id)) {
      const entry = historyView(row, this.#parts.toolEntry(row.name))
      if (entry !== undefined) entries.push(entry)
    }
    return entries
  }
}
