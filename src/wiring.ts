/**
 * @module The composition root of the server's runtime: the store its backend opened, the
 * journal, the executor with its ports, and the services, each given only the parts it uses.
 */
import path from 'node:path'
import type { Logger } from 'pino'
import type { HookRunner, ModelClient, PermissionService } from './contracts/ports.js'
import type { ArtifactReads, OpenedStore, RuleReads } from './contracts/store.js'
import type { ToolEntry } from './contracts/tool-entry.js'
import { BackgroundTaskRegistry } from './executor/background-tasks.js'
import { createExecutor } from './executor/executor.js'
import { createConfigHookRunner } from './hooks/config-hook-runner.js'
import { createDenyingBroker } from './permissions/brokers.js'
import { ruleCommandSplitter } from './permissions/command-splitter.js'
import { ruleSource, workspaceRules, type Policy } from './permissions/policy.js'
import { projectGrantRules } from './permissions/project-grants.js'
import { fourEyesRule } from './permissions/four-eyes-rules.js'
import { createRulePermissionService, EMPTY_RULES } from './permissions/rule-permission-service.js'
import { withSessionGrants } from './permissions/session-grants.js'
import { ClientTools } from './sessions/client-tools.js'
import { EventBus } from './sessions/event-bus.js'
import { EventFeed } from './sessions/event-feed.js'
import { EventJournal } from './sessions/event-journal.js'
import { LiveSessions } from './sessions/live-sessions.js'
import { KeyService } from './sessions/key-service.js'
import { LinkService } from './sessions/link-service.js'
import { ProjectRuleService } from './sessions/project-rule-service.js'
import { recoverSession, recoverUnfinished } from './sessions/recovery.js'
import type { Runtime } from './sessions/runtime.js'
import type { BacklogBounds } from './sessions/schedule-backlog.js'
import { ScheduleService } from './sessions/schedule-service.js'
import { SessionPermissionBroker } from './sessions/session-broker.js'
import { deleteSession } from './sessions/session-deletion.js'
import { AuditService } from './sessions/audit-service.js'
import { SessionAccess } from './sessions/session-access.js'
import { SessionOwnership } from './sessions/session-ownership.js'
import { SessionService } from './sessions/session-service.js'
import { WakeUps } from './sessions/wake-ups.js'
import { ToolexecError } from './contracts/errors.js'
import { DEFAULT_LEASE_MS, defaultNodeId } from './config.js'
import { drainRunningCalls, runningReport, stopRunningWork } from './sessions/shutdown.js'
import { serverToolServices, withLiveMode } from './sessions/tool-services.js'
import { Turns } from './sessions/turns.js'
import { capArtifacts, DEFAULT_ARTIFACT_CALL_CAP_BYTES, DEFAULT_ARTIFACT_SESSION_CAP_BYTES, type ArtifactCaps, type ArtifactUsage } from './storage/capped-artifact-store.js'
import { lockDataDir, type DataDirLock } from './storage/data-dir-lock.js'
import { defaultArtifactDir, FsArtifactStore } from './storage/fs-artifact-store.js'
import { openStore } from './storage/open-store.js'
import { recordArtifacts } from './storage/recorded-artifact-store.js'
import { StorageSpace, type StorageSpaceOptions } from './storage/storage-space.js'
import type { SandboxServices } from './tools/bash/confinement.js'
import { withSession } from './tools/bash/sandbox-config.js'
import { probeSandbox, type SandboxStatus } from './tools/bash/sandbox-probe.js'
import { serverPaths } from './tools/bash/server-paths.js'
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from './tools/bash/sandbox.js'
import type { CommandEnvironment } from './processes/command-environment.js'
import { InMemoryToolRegistry } from './tools/registry.js'
import type { WebFetchSettings } from './tools/services.js'

export type { Runtime }

export interface RuntimeOptions {
  readonly dataDir: string
  /** Where artifact files are kept (default `<dataDir>/cli/artifacts`). */
  readonly artifactDir?: string | undefined
  /** A postgres:// URL selects PostgreSQL; else the SQLite file in `dataDir`. */
  readonly databaseUrl?: string | undefined
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
  /** This server among those sharing a PostgreSQL database (defaults: defaultNodeId, DEFAULT_LEASE_MS). */
  readonly cluster?: { readonly nodeId: string; readonly leaseMs: number } | undefined
}

/** A session's lease went to another node: its work here stops, and nothing more of it is written. */
const LEASE_LOST = 'The session moved to another server of the cluster'

export interface RuntimeSandbox {
  readonly status: SandboxStatus
  readonly settings: SandboxSettings
  readonly hiddenPaths: readonly string[]
}

const DEFAULT_ARTIFACT_CAPS: ArtifactCaps = { perCallBytes: DEFAULT_ARTIFACT_CALL_CAP_BYTES, perSessionBytes: DEFAULT_ARTIFACT_SESSION_CAP_BYTES }

/** Takes the data directory's lock before anything is read or written there; a refused start leaves it as it was. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const lock = lockDataDir(options.dataDir)
  try {
    return await composeRuntime(options, lock)
  } catch (error) {
    lock.release()
    throw error
  }
}

async function composeRuntime(options: RuntimeOptions, lock: DataDirLock): Promise<Runtime> {
  const opened = await openStore({ dataDir: options.dataDir, databaseUrl: options.databaseUrl, logger: options.logger })
  try {
    return await composeOnStore(options, lock, opened)
  } catch (error) {
    // The start's own error is the one to report, whatever closing says.
    await opened.close().catch((closeError: unknown) => options.logger.warn({ err: closeError }, 'database not closed cleanly after a failed start'))
    throw error
  }
}

async function composeOnStore(options: RuntimeOptions, lock: DataDirLock, opened: OpenedStore): Promise<Runtime> {
  const { store } = opened
  const { logger } = options
  const bus = new EventBus()
  const storage = new StorageSpace(options.dataDir, options.storageSpace)
  if (!storage.reserve.make()) logger.warn({ dataDir: options.dataDir }, 'no room for the space reserve: a stop on a full disk may lose results')
  const journal = new EventJournal(store, bus, opened.commitGate, storage)
  const broker = new SessionPermissionBroker(store, journal)
  const registry = new InMemoryToolRegistry(options.tools)
  const clientTools = new ClientTools(registry, store, logger)
  // Before recovery: a recovered call of a client tool must find it.
  await clientTools.restore()
  const backgroundTasks = new BackgroundTaskRegistry()
  const memoryDir = options.memoryDir ?? options.policy?.permissions.memoryDir ?? path.join(options.dataDir, 'memory')
  const sandboxSettings = options.sandbox?.settings ?? DEFAULT_SANDBOX_SETTINGS
  const sandbox: SandboxServices = {
    settingsOf: async (sessionId) => withSession(sandboxSettings, (await store.sessions.get(sessionId))?.sandbox),
    hiddenPaths: options.sandbox?.hiddenPaths ?? serverPaths({ dataDir: options.dataDir }),
  }
  const node = options.cluster ?? { nodeId: defaultNodeId(options.dataDir), leaseMs: DEFAULT_LEASE_MS }
  const services = { ...serverToolServices(store, node.nodeId, backgroundTasks, memoryDir, options.webFetch, options.commandEnvironment), sandbox }
  const artifactFiles = new FsArtifactStore({ root: options.artifactDir ?? defaultArtifactDir(options.dataDir) })
  const executor = createExecutor({
    registry,
    permissions: withLiveMode(withSessionGrants(options.permissions ?? rulePermissions(options.policy, store.rules), store.approvals), services.session),
    services,
    backgroundTasks,
    broker,
    hooks: options.hooks ?? (options.policy === undefined ? undefined : createConfigHookRunner(options.policy.hooks, [], options.commandEnvironment)),
    artifacts: recordArtifacts(capArtifacts(artifactFiles, options.artifactCaps ?? DEFAULT_ARTIFACT_CAPS, artifactUsage(store.artifacts)), store),
    model: options.model,
    logger,
    memoryDir,
  })
  const live = new LiveSessions()
  const turns = new Turns({ journal, logger, broker, denyingBroker: createDenyingBroker() })
  const deletion = {
    store,
    journal,
    storage,
    live,
    broker,
    bus,
    backgroundTasks,
    forgetToolMemory: services.forgetSession,
    artifactRoot: artifactFiles.root,
    logger,
  }
  const sessions = new SessionService({
    store,
    journal,
    live,
    broker,
    backgroundTasks,
    toolEntry: (name) => registry.get(name),
    deleteSession: async (sessionId, by) => {
      await deleteSession(deletion, sessionId, by)
      await ownership.release(sessionId)
    },
    claim: (sessionId) => ownership.claim(sessionId),
    defaultWorkspace: options.workspace,
    defaultPermissionMode: options.policy?.permissions.defaultMode ?? 'default',
    fourEyesRule: fourEyesRule(options.policy?.fourEyes ?? [], (name) => registry.get(name)),
  })
  const followSession = (sessionId: string, wake: () => void): (() => void) => wakeUps.subscribe(sessionId, wake)
  const schedules = new ScheduleService({ store, journal, executor, turns, live, sessions, logger, backlog: options.scheduleBacklog, followSession })
  const recovery = { store, journal, executor, live, logger, backgroundTasks }
  const wakeUps = new WakeUps((sessionId) => ownership.epochOf(sessionId) !== undefined)
  const ownership = new SessionOwnership({
    cluster: opened.cluster,
    ...node,
    logger,
    adopt: async (sessionId) => {
      const report = await recoverSession(recovery, schedules, sessionId)
      if (report.schedules > 0) logger.info({ sessionId, ...report }, 'adopted a session with unfinished schedules')
    },
    drop: (sessionId) => {
      live.peek(sessionId)?.controller.abort(new ToolexecError('EXEC_ERR_CANCELLED', [], { context: { reason: LEASE_LOST } }))
      live.forget(sessionId)
      journal.forget(sessionId)
      wakeUps.wake(sessionId)
    },
  })
  if (!ownership.solo) opened.fence(ownership)
  const runsHere = (sessionId: string): boolean => ownership.solo || ownership.epochOf(sessionId) !== undefined
  const access = new SessionAccess(store)
  return {
    store,
    journal,
    bus,
    live,
    storage,
    registry,
    clientTools,
    executor,
    sessions,
    schedules,
    events: new EventFeed({ store, bus, wakeUps }),
    ownership,
    projectRules: new ProjectRuleService(store),
    keys: new KeyService(store),
    access,
    audit: new AuditService(store, access),
    links: new LinkService(store),
    dataDir: options.dataDir,
    database: opened,
    sandbox: options.sandbox?.status ?? probeSandbox('auto'),
    // On a shared database, a node recovers only the sessions it takes over (joinCluster).
    recover: () => (ownership.solo ? recoverUnfinished(recovery, schedules) : Promise.resolve({ schedules: 0, interrupted: 0, resumed: 0 })),
    joinCluster: (url) =>
      ownership.start(url, {
        events: (sessionId, seq) => wakeUps.committedElsewhere(sessionId, seq),
        // Its owner ended its streams there; the ones here end too.
        deleted: (sessionId) => bus.end(sessionId),
        toolsChanged: () => void clientTools.sync(),
        reconnected: () => {
          wakeUps.wakeAll()
          void clientTools.sync()
        },
      }),
    stopStartingCalls: () => journal.holdStarts(),
    close: async (closeOptions = {}) => {
      journal.holdStarts()
      const graceMs = closeOptions.graceMs ?? 0
      const report = graceMs > 0 ? await drainRunningCalls(journal, store, graceMs, runsHere) : await runningReport(journal, store, runsHere)
      // The reserve's space lets what a full disk kept in memory be written before the database closes.
      if (journal.keptCount > 0 && storage.reserve.release()) await journal.flush()
      storage.reserve.close()
      const lost = journal.keptCount
      await journal.close()
      // Still no space: what the disk could not take is lost, and its calls are `interrupted` at the next start.
      if (lost > 0) logger.error({ dataDir: storage.dataDir, writes: lost }, 'storage full: results not written before shutdown')
      // The other servers of a cluster take its sessions over at once, not once their leases run out.
      await ownership.stop().catch((error: unknown) => logger.warn({ err: error }, 'leases not handed over: other servers adopt the sessions once they run out'))
      await opened.close()
      // Released once the database is closed, before the kills below: a new server may take the directory while they run.
      lock.release()
      await stopRunningWork(live, backgroundTasks)
      return report
    },
  }
}

function artifactUsage(artifacts: ArtifactReads): ArtifactUsage {
  return {
    callBytes: (sessionId, callId) => artifacts.bytesOfCall(sessionId, callId),
    sessionBytes: (sessionId) => artifacts.bytesOfSession(sessionId),
  }
}

/** Server rules, the workspace's own rules, then the project grants; then the mode. */
function rulePermissions(policy: Policy | undefined, rules: RuleReads): PermissionService {
  const split = ruleCommandSplitter
  return createRulePermissionService(ruleSource(policy?.rules ?? EMPTY_RULES, workspaceRules(split), projectGrantRules(rules, split)))
}
