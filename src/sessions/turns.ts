/** @module The turn a schedule's calls run in: its session's settings, its signal, and where its events go. */
import type { Logger } from 'pino'
import type { ExecutorEvent } from '../contracts/events.js'
import type { PermissionBroker, TurnContext } from '../contracts/ports.js'
import type { SessionRecord } from '../contracts/store.js'
import { isShutdownFailure, type EventJournal } from './event-journal.js'
import { eventPolicy, stateChangeFor } from './event-policy.js'

export interface TurnParts {
  readonly journal: EventJournal
  readonly logger: Logger
  /** Asks the session's client (interactive sessions). */
  readonly broker: PermissionBroker
  /** Denies what would ask (non-interactive sessions). */
  readonly denyingBroker: PermissionBroker
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

export class Turns {
  readonly #parts: TurnParts
  readonly #emit: (event: ExecutorEvent) => Promise<unknown> | undefined

  constructor(parts: TurnParts) {
    this.#parts = parts
    this.#emit = journalSink(parts.journal, parts.logger)
  }

  of(session: SessionRecord, scheduleId: string, turnId: string, signal: AbortSignal): TurnContext {
    return {
      sessionId: session.id,
      turnId,
      scheduleId,
      signal,
      emit: this.#emit,
      permissionMode: session.permissionMode,
      workspace: session.workspace,
      permissionTimeoutMs: session.permissionTimeoutMs ?? undefined,
      broker: session.interactive ? this.#parts.broker : this.#parts.denyingBroker,
    }
  }
}
