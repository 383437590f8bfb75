/** @module Sessions: create, look up, list, abort the turn, delete, answer approvals, read history. */
import { isDeepStrictEqual } from 'node:util'
import type { CreateSessionBody, CreateSessionFields, HistoryEntry, PermissionAnswerBody, PermissionRequestRecord, Session, SessionList, SessionListQuery } from '../contracts/api.js'
import { ToolexecError } from '../contracts/errors.js'
import type { PermissionMode } from '../contracts/ports.js'
import type { ArtifactRecord, SessionRecord, Store } from '../contracts/store.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import type { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'
import type { SessionPermissionBroker } from './session-broker.js'
import { historyView, permissionView, sessionView } from './views.js'
import { resolveWorkspace } from './session-workspace.js'

export const TURN_ABORTED = 'Turn aborted by the client'
const DEFAULT_PAGE = 50
const MAX_PAGE = 500

/** A schedule for a session that does not exist, and that the request does not ask to create. */
export function unknownSessionOfSchedule(id: string): ToolexecError {
  return new ToolexecError('API_ERR_SESSION_NOT_FOUND', [id, '; create it first with POST /sessions, or let this request create it with "createSession": {"workspace": ...}'])
}

/** What the session service reads and changes. */
export interface SessionParts {
  readonly store: Store
  readonly journal: EventJournal
  readonly live: LiveSessions
  readonly broker: SessionPermissionBroker
  readonly backgroundTasks: BackgroundTaskRegistry
  /** The entry of a tool by name, for how its history is shown. */
  readonly toolEntry: (name: string) => ToolEntry | undefined
  /** Deletes the session with everything kept of it (session-deletion.ts). */
  readonly deleteSession: (sessionId: string) => Promise<void>
  readonly defaultWorkspace: string
  readonly defaultPermissionMode: PermissionMode
}

export class SessionService {
  readonly #parts: SessionParts

  constructor(parts: SessionParts) {
    this.#parts = parts
  }

  create(body: CreateSessionBody): Session {
    const id = body.id ?? `ses_${crypto.randomUUID()}`
    if (this.#parts.store.getSession(id) !== undefined) throw new ToolexecError('API_ERR_SESSION_EXISTS', [id])
    this.#parts.store.insertSession(this.newRecord(id, body))
    return this.view(id) as Session
  }

  /**
   * The session a schedule runs in: the stored one, or, when the request asks to create it, a
   * new record not yet stored. An unknown id is never a session made up with defaults: a
   * mistyped id would run the calls in the server's default workspace.
   */
  forSchedule(id: string, create: CreateSessionFields | undefined): SessionRecord {
    const stored = this.#parts.store.getSession(id)
    if (stored === undefined) {
      if (create === undefined) throw unknownSessionOfSchedule(id)
      return this.newRecord(id, create)
    }
    if (create !== undefined) this.assertSame(stored, create)
    return stored
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
      createdAt: new Date().toISOString(),
    }
  }

  get(id: string): SessionRecord {
    const record = this.#parts.store.getSession(id)
    if (record === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [id, ''])
    return record
  }

  view(id: string): Session | undefined {
    const record = this.#parts.store.getSession(id)
    if (record === undefined) return undefined
    const running = (this.#parts.live.peek(id)?.running ?? 0) > 0
    return sessionView(record, this.#parts.store.sessionCounts(id), running, this.#parts.journal.lastSeq(id))
  }

  /** Newest first, a page at a time; `before` is the `next` of the previous page. */
  list(query: SessionListQuery): SessionList {
    const limit = query.limit ?? DEFAULT_PAGE
    if (limit > MAX_PAGE) throw new ToolexecError('API_ERR_VALIDATION', [`limit must be at most ${MAX_PAGE}, not ${limit}`])
    const before = query.before === undefined ? undefined : this.get(query.before)
    const page = this.#parts.store.sessionsBefore(before, limit + 1)
    const sessions = page.slice(0, limit).map((record) => this.view(record.id) as Session)
    const last = sessions.at(-1)
    return page.length > limit && last !== undefined ? { sessions, next: last.id } : { sessions }
  }

  /**
   * R23: running calls end cancelled, pending approvals resolve as abort, queued schedules end
   * cancelled. The abort is stored with the schedules before it is acknowledged: a crash before
   * they end must not let a restart run them.
   */
  abort(id: string): { sessionId: string; aborted: boolean } {
    this.get(id)
    // On a full disk the abort still happens; its record is written when space returns.
    this.#parts.journal.writeOrKeep((store, at) => store.markSchedulesAborted(id, at))
    const live = this.#parts.live.get(id)
    const previous = live.controller
    live.controller = new AbortController()
    previous.abort(new ToolexecError('EXEC_ERR_CANCELLED', [], { context: { reason: TURN_ABORTED } }))
    this.#parts.backgroundTasks.cancelSession(id, TURN_ABORTED)
    return { sessionId: id, aborted: true }
  }

  /** Deletes the session with everything kept of it; refused (409) while it has work going on. */
  delete(id: string): Promise<void> {
    return this.#parts.deleteSession(id)
  }

  /** An artifact the session's calls recorded. */
  artifact(sessionId: string, artifactId: string): ArtifactRecord {
    const artifact = this.#parts.store.getArtifact(sessionId, artifactId)
    if (artifact === undefined) throw new ToolexecError('API_ERR_ARTIFACT_NOT_FOUND', [artifactId, sessionId])
    return artifact
  }

  /** The artifact, or undefined when the session recorded none of that id. */
  findArtifact(sessionId: string, artifactId: string): ArtifactRecord | undefined {
    return this.#parts.store.getArtifact(sessionId, artifactId)
  }

  answerPermission(id: string, body: PermissionAnswerBody): PermissionRequestRecord {
    const answer = { decision: body.decision, decidedBy: 'client' as const, message: body.message, scope: body.scope ?? 'once' }
    const outcome = this.#parts.broker.answer(id, answer, body.sessionId)
    if (outcome.kind === 'unknown') throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
    if (outcome.kind === 'conflict') {
      throw new ToolexecError('API_ERR_PERMISSION_DECIDED', [id, outcome.answer.decision, outcome.answer.decidedBy], {
        context: { decision: outcome.answer.decision, decidedBy: outcome.answer.decidedBy },
      })
    }
    const row = this.#parts.store.getPermission(id)
    if (row === undefined) throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
    // The stored row may lag the live decision by a tick; show the decision that holds.
    const view = permissionView(row)
    if (view.status !== 'pending') return view
    return { ...view, status: outcome.answer.decision, decidedBy: outcome.answer.decidedBy }
  }

  pendingPermissions(sessionId?: string): PermissionRequestRecord[] {
    return this.#parts.store.pendingPermissions(sessionId).map(permissionView)
  }

  history(id: string): HistoryEntry[] {
    this.get(id)
    const entries: HistoryEntry[] = []
    for (const row of this.#parts.store.history(id)) {
      const entry = historyView(row, this.#parts.toolEntry(row.name))
      if (entry !== undefined) entries.push(entry)
    }
    return entries
  }
}
