/**
 * @module The executor's ports (R2), and the same with every default filled in. The permission
 * service and the broker have no default here: the wiring chooses them (src/permissions).
 */
import { trace, type Tracer } from '@opentelemetry/api'
import { pino, type Logger } from 'pino'
import type { ArtifactStore, Clock, HookRunner, ModelClient, PermissionBroker, PermissionService, ToolRegistry, ToolServices } from '../contracts/ports.js'
import { AdmissionGate } from './admission-gate.js'
import { BackgroundTaskRegistry } from './background-tasks.js'
import { DEFAULT_TIMEOUT_MS } from './timeout.js'

export const DEFAULT_MAX_CONCURRENCY = 10

export interface ExecutorPorts {
  readonly registry: ToolRegistry
  /** Decides every call; chosen by the composition root, never defaulted here. */
  readonly permissions: PermissionService
  /** Where `ask` goes when the turn brings no broker of its own (a denying one, R17, where no client answers). */
  readonly broker: PermissionBroker
  readonly hooks?: HookRunner | undefined
  readonly artifacts?: ArtifactStore | undefined
  readonly model?: ModelClient | undefined
  readonly admission?: AdmissionGate | undefined
  readonly clock?: Clock | undefined
  readonly logger?: Logger | undefined
  readonly tracer?: Tracer | undefined
  readonly services?: Partial<ToolServices> | undefined
  readonly defaultTimeoutMs?: number | undefined
  /** Markdown writes here are allowed without asking (A9). */
  readonly memoryDir?: string | undefined
  readonly maxConcurrency?: number | undefined
  /** Shared with the tools that start background tasks; one is made when absent. */
  readonly backgroundTasks?: BackgroundTaskRegistry | undefined
}

export interface ExecutorDeps {
  readonly registry: ToolRegistry
  readonly permissions: PermissionService
  readonly broker: PermissionBroker
  readonly hooks: HookRunner | undefined
  readonly artifacts: ArtifactStore | undefined
  readonly model: ModelClient | undefined
  readonly admission: AdmissionGate
  readonly clock: Clock
  readonly logger: Logger
  readonly tracer: Tracer
  readonly services: Partial<ToolServices>
  readonly defaultTimeoutMs: number
  readonly memoryDir: string | undefined
  readonly maxConcurrency: number
  readonly backgroundTasks: BackgroundTaskRegistry
}

const PERFORMANCE_CLOCK: Clock = { now: () => performance.now() }

export function resolveDeps(ports: ExecutorPorts): ExecutorDeps {
  return {
    registry: ports.registry,
    permissions: ports.permissions,
    broker: ports.broker,
    hooks: ports.hooks,
    artifacts: ports.artifacts,
    model: ports.model,
    admission: ports.admission ?? new AdmissionGate(),
    clock: ports.clock ?? PERFORMANCE_CLOCK,
    logger: ports.logger ?? pino({ level: 'silent' }),
    tracer: ports.tracer ?? trace.getTracer('toolexec'),
    services: ports.services ?? {},
    defaultTimeoutMs: ports.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    memoryDir: ports.memoryDir,
    maxConcurrency: Math.max(1, Math.trunc(ports.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY)),
    backgroundTasks: ports.backgroundTasks ?? new BackgroundTaskRegistry(),
  }
}
