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
import { FsArtifactStore } from '../storage/fs-artifact-store.js'
import { recordArtifacts } from '../storage/recorded-artifact-store.js'
import { SqliteStore } from '../storage/sqlite-store.js'
import { startWalCheckpointer } from '../storage/wal-checkpointer.js'
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
  /** Rules and hooks of the config file; permissions and hooks given above take precedence. */
  readonly policy?: Policy | undefined
  /** Bash's sandbox: the probe, the config file's settings, the server files to hide. */
  readonly sandbox?: RuntimeSandbox | undefined
}

export interface RuntimeSandbox {
  readonly status: SandboxStatus
  readonly settings: SandboxSettings
  readonly hiddenPaths: readonly string[]
}

export interface Runtime {
  readonly ctx: RuntimeContext
  readonly registry: InMemoryToolRegistry
  /** HTTP tools added by clients, kept across restarts. */
  readonly clientTools: ClientTools
  readonly executor: Executor
  readonly sessions: SessionService
  readonly schedules: ScheduleService
  readonly dataDir: string
  /** Whether Bash commands are confined, as the server probed it at start. */
  readonly sandbox: SandboxStatus
  recover(): RecoveryReport
  /** From now on no call starts: one not started yet runs at the next start (see shutdown.ts). */
  stopStartingCalls(): void
  /** Stops starting calls, lets running ones finish within `graceMs`, closes the database, then stops what still runs without recording it (see shutdown.ts). */
  close(options?: CloseOptions): Promise<void>
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const db = openDatabase(path.join(options.dataDir, 'toolexec.db'))
  const checkpointer = startWalCheckpointer(db)
  const store = new SqliteStore(db)
  const bus = new EventBus()
  const journal = new EventJournal(store, bus, () => checkpointer.writeGate())
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
  const services = { ...serverToolServices(store, backgroundTasks, memoryDir, options.webFetch), sandbox }
  const artifactFiles = new FsArtifactStore({ dataDir: options.dataDir })
  const executor = createExecutor({
    registry,
    permissions: withLiveMode(withSessionGrants(options.permissions ?? rulePermissions(options.policy, store), store), services.session),
    services,
    backgroundTasks,
    broker,
    hooks: options.hooks ?? (options.policy === undefined ? undefined : createConfigHookRunner(options.policy.hooks)),
    artifacts: recordArtifacts(artifactFiles, store),
    model: options.model,
    logger: options.logger,
    memoryDir,
  })
  const ctx: RuntimeContext = {
    store,
    journal,
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
  const schedules = new ScheduleService(ctx, sessions)
  return {
    ctx,
    registry,
    clientTools,
    executor,
    sessions,
    schedules,
    dataDir: options.dataDir,
    sandbox: options.sandbox?.status ?? probeSandbox('auto'),
    recover: () => recoverUnfinished(ctx, schedules),
    stopStartingCalls: () => journal.holdStarts(),
    close: async (options = {}) => {
      journal.holdStarts()
      if ((options.graceMs ?? 0) > 0) await drainRunningCalls(journal, store, options.graceMs ?? 0)
      journal.close()
      checkpointer.stop()
      db.close()
      await stopRunningWork(ctx.live, backgroundTasks)
    },
  }
}

/** Server rules, the workspace's own rules, then the project grants; then the mode. */
function rulePermissions(policy: Policy | undefined, store: SqliteStore): PermissionService {
  const split = ruleCommandSplitter
  return createRulePermissionService(ruleSource(policy?.rules ?? EMPTY_RULES, workspaceRules(split), projectGrantRules(store, split)))
}
