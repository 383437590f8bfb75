/**
 * @module The composition root of the server's runtime: database, journal, executor with
 * its ports, the session and schedule services, and crash recovery.
 */
import path from 'node:path'
import type { Logger } from 'pino'
import type { HookRunner, ModelClient, PermissionService } from '../contracts/ports.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import { createExecutor, type Executor } from '../executor/executor.js'
import { createDenyingBroker } from '../permissions/brokers.js'
import { ruleCommandSplitter } from '../permissions/command-splitter.js'
import { ruleSource, workspaceRules, type Policy } from '../permissions/policy.js'
import { projectGrantRules } from '../permissions/project-grants.js'
import { createRulePermissionService, EMPTY_RULES } from '../permissions/rule-permission-service.js'
import { createConfigHookRunner } from '../hooks/config-hook-runner.js'
import { withSessionGrants } from '../permissions/session-grants.js'
import { openDatabase } from '../storage/database.js'
import { capArtifacts, DEFAULT_ARTIFACT_CALL_CAP_BYTES, DEFAULT_ARTIFACT_SESSION_CAP_BYTES, type ArtifactCaps } from '../storage/capped-artifact-store.js'
import { DatabaseHealth } from '../storage/database-health.js'
import { lockDataDir, type DataDirLock } from '../storage/data-dir-lock.js'
import { FsArtifactStore } from '../storage/fs-artifact-store.js'
import { recordArtifacts } from '../storage/recorded-artifact-store.js'
import { SqliteStore } from '../storage/sqlite-store.js'
import { StorageSpace, type StorageSpaceOptions } from '../storage/storage-space.js'
import { startWalCheckpointer } from '../storage/wal-checkpointer.js'
import type { CommandEnvironment } from '../processes/command-environment.js'
import { InMemoryToolRegistry } from '../tools/registry.js'
import { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import type { WebFetchSettings } from '../tools/services.js'
import type { SandboxServices } from '../tools/bash/confinement.js'
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../tools/bash/sandbox.js'
import { withSession } from '../tools/bash/sandbox-config.js'
import { probeSandbox, type SandboxStatus } from '../tools/bash/sandbox-probe.js'
import { ClientTools } from './client-tools.js'
import { EventBus } from './event-bus.js'
import { serverToolServices, withLiveMode } from './tool-services.js'
import { EventJournal } from './event-journal.js'
import { recoverUnfinished, type RecoveryReport } from './recovery.js'
import { LiveSessions, type RuntimeContext } from './runtime-context.js'
import { ScheduleService } from './schedule-service.js'
import type { BacklogBounds } from './schedule-backlog.js'
import { SessionPermissionBroker } from './session-broker.js'
import { SessionService } from './session-service.js'
import { drainRunningCalls, stopRunningWork, type CloseOptions } from './shutdown.js'

export interface RuntimeOptions {
  readonly dataDir: string
  readonly workspace: string
  readonly tools: readonly ToolEntry[]
  readonly logger: Logger
  readonly hooks?: HookRunner | undefined
  readonly permissions?: PermissionService | undefined
  readonly model?: ModelClient | undefined
  readonly memoryDir?: string | undefined
  readonly webFetch?: Partial<WebFetchSettings> | undefined
  /** What commands, command hooks and MCP servers see of the server's environment; by default the allow-list alone. */
  readonly commandEnvironment?: CommandEnvironment | undefined
  /** Rules and hooks of the config file; permissions and hooks given above take precedence. */
  readonly policy?: Policy | undefined
  /** Bounds on schedules waiting to start (defaults: DEFAULT_BACKLOG_BOUNDS). */
  readonly scheduleBacklog?: BacklogBounds | undefined
  /** How much artifacts may hold, per call and per session. */
  readonly artifactCaps?: ArtifactCaps | undefined
  /** How the data directory's free space is told (tests give their own). */
  readonly storageSpace?: StorageSpaceOptions | undefined
  /** Bash's sandbox: the probe, the config file's settings, the server files to hide. */
  readonly sandbox?: RuntimeSandbox | undefined
}

export interface RuntimeSandbox {
  readonly status: SandboxStatus
  readonly settings: SandboxSettings
  readonly hiddenPaths: readonly string[]
}

const DEFAULT_ARTIFACT_CAPS: ArtifactCaps = { perCallBytes: DEFAULT_ARTIFACT_CALL_CAP_BYTES, perSessionBytes: DEFAULT_ARTIFACT_SESSION_CAP_BYTES }

export interface Runtime {
  readonly ctx: RuntimeContext
  readonly registry: InMemoryToolRegistry
  /** HTTP tools added by clients, kept across restarts. */
  readonly clientTools: ClientTools
  readonly executor: Executor
  readonly sessions: SessionService
  readonly schedules: ScheduleService
  readonly dataDir: string
  /** Damage the database showed since the start (see database-health.ts). */
  readonly database: DatabaseHealth
  /** Whether Bash commands are confined, as the server probed it at start. */
  readonly sandbox: SandboxStatus
  recover(): RecoveryReport
  /** From now on no call starts: one not started yet runs at the next start (see shutdown.ts). */
  stopStartingCalls(): void
  /** Stops starting calls, lets running ones finish within `graceMs`, closes the database, then stops what still runs without recording it (see shutdown.ts). */
  close(options?: CloseOptions): Promise<void>
}

/** Takes the data directory's lock before anything is read or written there; a refused start leaves it as it was. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const lock = lockDataDir(options.dataDir)
  try {
    return composeRuntime(options, lock)
  } catch (error) {
    lock.release()
    throw error
  }
}

function composeRuntime(options: RuntimeOptions, lock: DataDirLock): Runtime {
  const db = openDatabase(path.join(options.dataDir, 'toolexec.db'))
  const checkpointer = startWalCheckpointer(db)
  const store = new SqliteStore(db)
  const bus = new EventBus()
  const storage = new StorageSpace(options.dataDir, options.storageSpace)
  if (!storage.reserve.make()) options.logger.warn({ dataDir: options.dataDir }, 'no room for the space reserve: a stop on a full disk may lose results')
  const journal = new EventJournal(store, bus, () => checkpointer.writeGate(), storage)
  const broker = new SessionPermissionBroker(store, journal)
  const registry = new InMemoryToolRegistry(options.tools)
  const clientTools = new ClientTools(registry, store, options.logger)
  // Before recovery: a recovered call of a client tool must find it.
  clientTools.restore()
  const backgroundTasks = new BackgroundTaskRegistry()
  const memoryDir = options.memoryDir ?? options.policy?.permissions.memoryDir ?? path.join(options.dataDir, 'memory')
  const sandboxSettings = options.sandbox?.settings ?? DEFAULT_SANDBOX_SETTINGS
  const sandbox: SandboxServices = {
    settingsOf: (sessionId) => withSession(sandboxSettings, store.getSession(sessionId)?.sandbox),
    hiddenPaths: options.sandbox?.hiddenPaths ?? [options.dataDir],
  }
  const services = { ...serverToolServices(store, backgroundTasks, memoryDir, options.webFetch, options.commandEnvironment), sandbox }
  const artifactFiles = new FsArtifactStore({ dataDir: options.dataDir })
  const executor = createExecutor({
    registry,
    permissions: withLiveMode(withSessionGrants(options.permissions ?? rulePermissions(options.policy, store), store), services.session),
    services,
    backgroundTasks,
    broker,
    hooks: options.hooks ?? (options.policy === undefined ? undefined : createConfigHookRunner(options.policy.hooks, [], options.commandEnvironment)),
    artifacts: recordArtifacts(capArtifacts(artifactFiles, options.artifactCaps ?? DEFAULT_ARTIFACT_CAPS, artifactUsage(store)), store),
    model: options.model,
    logger: options.logger,
    memoryDir,
  })
  const ctx: RuntimeContext = {
    store,
    journal,
    storage,
    bus,
    executor,
    broker,
    denyingBroker: createDenyingBroker(),
    forgetToolMemory: services.forgetSession,
    artifactRoot: artifactFiles.root,
    defaultWorkspace: options.workspace,
    defaultPermissionMode: options.policy?.permissions.defaultMode ?? 'default',
    logger: options.logger,
    live: new LiveSessions(),
  }
  const sessions = new SessionService(ctx)
  const schedules = new ScheduleService(ctx, sessions, options.scheduleBacklog)
  return {
    ctx,
    registry,
    clientTools,
    executor,
    sessions,
    schedules,
    dataDir: options.dataDir,
    database: new DatabaseHealth(db),
    sandbox: options.sandbox?.status ?? probeSandbox('auto'),
    recover: () => recoverUnfinished(ctx, schedules),
    stopStartingCalls: () => journal.holdStarts(),
    close: async (options = {}) => {
      journal.holdStarts()
      if ((options.graceMs ?? 0) > 0) await drainRunningCalls(journal, store, options.graceMs ?? 0)
      // The reserve's space lets what a full disk kept in memory be written before the database closes.
      if (journal.keptCount > 0 && storage.reserve.release()) journal.flush()
      storage.reserve.close()
      const lost = journal.keptCount
      journal.close()
      // Still no space: what the disk could not take is lost, and its calls are `interrupted` at the next start.
      if (lost > 0) ctx.logger.error({ dataDir: storage.dataDir, writes: lost }, 'storage full: results not written before shutdown')
      checkpointer.stop()
      db.close()
      // Released with the database closed, not after the kills below: close() need not be awaited to reopen the directory.
      lock.release()
      await stopRunningWork(ctx.live, backgroundTasks)
    },
  }
}

function artifactUsage(store: SqliteStore): { callBytes(sessionId: string, callId: string): number; sessionBytes(sessionId: string): number } {
  return {
    callBytes: (sessionId, callId) => store.artifactBytesOfCall(sessionId, callId),
    sessionBytes: (sessionId) => store.artifactBytesOfSession(sessionId),
  }
}

/** Server rules, the workspace's own rules, then the project grants; then the mode. */
function rulePermissions(policy: Policy | undefined, store: SqliteStore): PermissionService {
  const split = ruleCommandSplitter
  return createRulePermissionService(ruleSource(policy?.rules ?? EMPTY_RULES, workspaceRules(split), projectGrantRules(store, split)))
}
