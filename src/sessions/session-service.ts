/** @module Sessions: create, look up, list, abort the turn, delete, answer approvals, read history. */
import path from 'node:path'
import type { CreateSessionBody, HistoryEntry, PermissionAnswerBody, PermissionRequestRecord, Session, SessionList, SessionListQuery } from '../contracts/api.js'
import { ToolexecError } from '../contracts/errors.js'
import type { SessionRecord } from '../contracts/store.js'
import type { RuntimeContext } from './runtime-context.js'
import { deleteSession } from './session-deletion.js'
import { historyView, permissionView, sessionView } from './views.js'

export const TURN_ABORTED = 'Turn aborted by the client'
const DEFAULT_PAGE = 50
const MAX_PAGE = 500

export class SessionService {
  readonly #ctx: RuntimeContext

  constructor(ctx: RuntimeContext) {
    this.#ctx = ctx
  }

  create(body: CreateSessionBody): Session {
    const id = body.id ?? `ses_${crypto.randomUUID()}`
    if (this.#ctx.store.getSession(id) !== undefined) throw new ToolexecError('API_ERR_SESSION_EXISTS', [id])
    this.#ctx.store.insertSession(this.newRecord(id, body))
    return this.view(id) as Session
  }

  /** A record with defaults for `id`, not yet stored. */
  newRecord(id: string, body: CreateSessionBody = {}): SessionRecord {
    return {
      id,
      workspace: path.resolve(this.#ctx.defaultWorkspace, body.workspace ?? '.'),
      permissionMode: body.permissionMode ?? this.#ctx.defaultPermissionMode,
      interactive: body.interactive ?? true,
      permissionTimeoutMs: body.permissionTimeoutMs ?? null,
      sandbox: body.sandbox,
      createdAt: new Date().toISOString(),
    }
  }

  get(id: string): SessionRecord {
    const record = this.#ctx.store.getSession(id)
    if (record === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [id])
    return record
  }

  view(id: string): Session | undefined {
    const record = this.#ctx.store.getSession(id)
    if (record === undefined) return undefined
    const running = (this.#ctx.live.peek(id)?.running ?? 0) > 0
    return sessionView(record, this.#ctx.store.sessionCounts(id), running, this.#ctx.journal.lastSeq(id))
  }

  /** Newest first, a page at a time; `before` is the `next` of the previous page. */
  list(query: SessionListQuery): SessionList {
    const limit = query.limit ?? DEFAULT_PAGE
    if (limit > MAX_PAGE) throw new ToolexecError('API_ERR_VALIDATION', [`limit must be at most ${MAX_PAGE}, not ${limit}`])
    const before = query.before === undefined ? undefined : this.get(query.before)
    const page = this.#ctx.store.sessionsBefore(before, limit + 1)
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
    this.#ctx.journal.writeOrKeep((store, at) => store.markSchedulesAborted(id, at))
    const live = this.#ctx.live.get(id)
    const previous = live.controller
    live.controller = new AbortController()
    previous.abort(new ToolexecError('EXEC_ERR_CANCELLED', [], { context: { reason: TURN_ABORTED } }))
    this.#ctx.executor.backgroundTasks.cancelSession(id, TURN_ABORTED)
    return { sessionId: id, aborted: true }
  }

  /** Deletes the session with everything kept of it; refused (409) while it has work going on. */
  delete(id: string): Promise<void> {
    return deleteSession(this.#ctx, id)
  }

  answerPermission(id: string, body: PermissionAnswerBody): PermissionRequestRecord {
    const answer = { decision: body.decision, decidedBy: 'client' as const, message: body.message, scope: body.scope ?? 'once' }
    const outcome = this.#ctx.broker.answer(id, answer, body.sessionId)
    if (outcome.kind === 'unknown') throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
    if (outcome.kind === 'conflict') {
      throw new ToolexecError('API_ERR_PERMISSION_DECIDED', [id, outcome.answer.decision, outcome.answer.decidedBy], {
        context: { decision: outcome.answer.decision, decidedBy: outcome.answer.decidedBy },
      })
    }
    const row = this.#ctx.store.getPermission(id)
    if (row === undefined) throw new ToolexecError('API_ERR_PERMISSION_NOT_FOUND', [id])
    // The stored row may lag the live decision by a tick; show the decision that holds.
    const view = permissionView(row)
    if (view.status !== 'pending') return view
    return { ...view, status: outcome.answer.decision, decidedBy: outcome.answer.decidedBy }
  }

  pendingPermissions(sessionId?: string): PermissionRequestRecord[] {
    return this.#ctx.store.pendingPermissions(sessionId).map(permissionView)
  }

  history(id: string): HistoryEntry[] {
    this.get(id)
    const entries: HistoryEntry[] = []
    for (const row of this.#ctx.store.history(id)) {
      const entry = historyView(row, this.#ctx.executor.deps.registry.get(row.name))
      if (entry !== undefined) entries.push(entry)
    }
    return entries
  }
}
