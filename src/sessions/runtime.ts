/** @module What the server's runtime gives the HTTP edge and the server: its services and the parts they share (built by src/wiring.ts). */
import type { OpenedStore, Store } from '../contracts/store.js'
import type { Executor } from '../executor/executor.js'
import type { StorageRoom } from '../contracts/storage-room.js'
import type { SandboxStatus } from '../tools/bash/sandbox-probe.js'
import type { InMemoryToolRegistry } from '../tools/registry.js'
import type { AuditService } from './audit-service.js'
import type { ClientTools } from './client-tools.js'
import type { EventBus } from './event-bus.js'
import type { EventFeed } from './event-feed.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'
import type { KeyService } from './key-service.js'
import type { LinkService } from './link-service.js'
import type { ProjectRuleService } from './project-rule-service.js'
import type { RecoveryReport } from './recovery.js'
import type { ScheduleService } from './schedule-service.js'
import type { SessionAccess } from './session-access.js'
import type { SessionOwnership } from './session-ownership.js'
import type { SessionService } from './session-service.js'
import type { CloseOptions, ShutdownReport } from './shutdown.js'

export interface Runtime {
  /** Every row the server keeps, behind the storage port (tests read it to check what was written). */
  readonly store: Store
  readonly journal: EventJournal
  readonly bus: EventBus
  readonly live: LiveSessions
  /** Whether the data directory has room for new work. */
  readonly storage: StorageRoom
  readonly registry: InMemoryToolRegistry
  /** HTTP tools added by clients, kept across restarts. */
  readonly clientTools: ClientTools
  readonly executor: Executor
  readonly sessions: SessionService
  readonly schedules: ScheduleService
  /** A session's events, stored then live, for its streams. */
  readonly events: EventFeed
  readonly projectRules: ProjectRuleService
  /** API keys: minted, listed, revoked, and the principal of a request's key. */
  readonly keys: KeyService
  /** The audit log, as GET /audit reads it. */
  readonly audit: AuditService
  /** Short-lived links to one session, kept as keys. */
  readonly links: LinkService
  /** Which sessions a principal sees. */
  readonly access: SessionAccess
  readonly dataDir: string
  /** What is wrong with the database since the start (damage, a lost connection), told by its backend. */
  readonly database: Pick<OpenedStore, 'backend' | 'trouble' | 'noteFailure'>
  /** Whether Bash commands are confined, as the server probed it at start. */
  readonly sandbox: SandboxStatus
  /** Which sessions this server runs, among the servers sharing its database. */
  readonly ownership: SessionOwnership
  recover(): Promise<RecoveryReport>
  /** Registers this server, reachable at `url`, with the others sharing its database, and adopts the sessions none runs. */
  joinCluster(url: string): Promise<void>
  /** From now on no call starts: one not started yet runs at the next start (see shutdown.ts). */
  stopStartingCalls(): void
  /** Stops starting calls, lets running ones finish within `graceMs`, closes the database, then stops what still runs without recording it (see shutdown.ts). */
  close(options?: CloseOptions): Promise<ShutdownReport>
}
