/** @module What the session services share: storage, journal, executor, live session state. */
import type { Logger } from 'pino'
import type { ExecutorEvent } from '../contracts/events.js'
import type { PermissionBroker, PermissionMode, TurnContext } from '../contracts/ports.js'
import type { SessionRecord } from '../contracts/store.js'
import type { Executor } from '../executor/executor.js'
import type { SqliteStore } from '../storage/sqlite-store.js'
import type { StorageSpace } from '../storage/storage-space.js'
import type { EventBus } from './event-bus.js'
import { isShutdownFailure, type EventJournal } from './event-journal.js'
import { eventPolicy, stateChangeFor } from './event-policy.js'
import type { SessionPermissionBroker } from './session-broker.js'

export interface RuntimeContext {
  readonly store: SqliteStore
  readonly journal: EventJournal
  /** Whether the data directory has room for new work. */
  readonly storage: StorageSpace
  readonly bus: EventBus
  readonly executor: Executor
  readonly broker: SessionPermissionBroker
  readonly denyingBroker: PermissionBroker
  /** Forgets what the tools keep in memory of a deleted session (file reads, ended background commands, the mode before plan). */
  readonly forgetToolMemory: (sessionId: string) => void
  /** The folder every artifact file is under; deleting a session removes files only there. */
  readonly artifactRoot: string
  readonly defaultWorkspace: string
  readonly defaultPermissionMode: PermissionMode
  readonly logger: Logger
  readonly live: LiveSessions
}

/** In-memory state of a session: its turn's abort controller and its schedule queue. */
export class LiveSession {
  readonly id: string
  controller = new AbortController()
  /** Schedules of one session run one after another in arrival order. */
  tail: Promise<void> = Promise.resolve()
  running = 0

  constructor(id: string) {
    this.id = id
  }

  enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.tail.then(task, task)
    this.tail = next.catch(() => {})
    return next
  }
}

export class LiveSessions {
  readonly #sessions = new Map<string, LiveSession>()

  get(id: string): LiveSession {
    let session = this.#sessions.get(id)
    if (session === undefined) {
      session = new LiveSession(id)
      this.#sessions.set(id, session)
    }
    return session
  }

  peek(id: string): LiveSession | undefined {
    return this.#sessions.get(id)
  }

  all(): LiveSession[] {
    return [...this.#sessions.values()]
  }

  forget(id: string): void {
    this.#sessions.delete(id)
  }
}

export function journalSink(journal: EventJournal, logger: Logger): (event: ExecutorEvent) => Promise<unknown> | undefined {
  return function journalEvent(event) {
    // Awaited events do not hold the call on a full disk once they are kept to be written later.
    // Events the executor need not wait for share a later commit (event-policy.ts).
    if (eventPolicy(event.type).awaited) return journal.appendEnsured(event, stateChangeFor(event))
    const written = journal.append(event, stateChangeFor(event))
    written.catch((error: unknown) => {
      const level = isShutdownFailure(error) ? 'debug' : 'error'
      logger[level]({ err: error, sessionId: event.sessionId, type: event.type }, 'journal.append_failed')
    })
    return undefined
  }
}

export function turnFor(ctx: RuntimeContext, session: SessionRecord, scheduleId: string, turnId: string, signal: AbortSignal): TurnContext {
  return {
    sessionId: session.id,
    turnId,
    scheduleId,
    signal,
    emit: journalSink(ctx.journal, ctx.logger),
    permissionMode: session.permissionMode,
    workspace: session.workspace,
    permissionTimeoutMs: session.permissionTimeoutMs ?? undefined,
    broker: session.interactive ? ctx.broker : ctx.denyingBroker,
  }
}
